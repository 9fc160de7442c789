// Latency from the last byte of an epoch written to a pty to the `didUpdateLocations`
// action in a subscriber, through `LocationManager.serial`, plus the CPU the bridge uses
// while idle and while streaming.
//
//   swift run -c release serial-latency [--epochs N] [--idle SECONDS] [--stream SECONDS]
//
// Defaults: 1,000 epochs at 10 Hz, 10 s idle, 60 s streaming (about three minutes).
import FoundationEssentials
import GPSLocation
import NMEA
import Plumbing
import Synchronization

var epochs = 1000, idleSeconds = 10, streamSeconds = 60
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  let value = arguments.popFirst().flatMap(Int.init)
  switch (argument, value) {
  case ("--epochs", let value?): epochs = value
  case ("--idle", let value?): idleSeconds = value
  case ("--stream", let value?): streamSeconds = value
  default:
    print("USAGE: serial-latency [--epochs N] [--idle SECONDS] [--stream SECONDS]")
    exit(64)
  }
}

/// One 10 Hz epoch: RMC, GGA, GSA, GST, the GST last.
func epoch(_ index: Int) -> [UInt8] {
  let tenths = index % 864_000
  let seconds = tenths / 10
  func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
  let time = two(seconds / 3600) + two(seconds / 60 % 60) + two(seconds % 60) + ".\(tenths % 10)0"
  let minutes = 7.0 + Double(index % 1000) * 0.00001
  let latitude = "48" + String(format5(minutes))
  let bodies = [
    "GNRMC,\(time),A,\(latitude),N,01131.00000,E,10.000,45.00,010524,,,A",
    "GNGGA,\(time),\(latitude),N,01131.00000,E,1,12,0.90,500.0,M,47.3,M,,",
    "GNGSA,A,3,02,05,07,09,13,15,18,20,,,,,1.60,0.90,1.30",
    "GNGST,\(time),1.0,2.0,1.5,30.0,1.8,1.6,3.0",
  ]
  var bytes: [UInt8] = []
  for body in bodies {
    let checksum = body.utf8.reduce(0, ^)
    let hex = Array("0123456789ABCDEF".utf8)
    bytes += [UInt8(ascii: "$")] + Array(body.utf8) + [UInt8(ascii: "*"), hex[Int(checksum >> 4)], hex[Int(checksum & 15)], 0x0D, 0x0A]
  }
  return bytes
}

func format5(_ value: Double) -> String {
  let scaled = Int((value * 100_000).rounded())
  let whole = scaled / 100_000
  let fraction = String(scaled % 100_000 + 100_000).dropFirst()
  return (whole < 10 ? "0" : "") + "\(whole).\(fraction)"
}

func cpuSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

var masterSide: CInt = -1, slave: CInt = -1
var name = [CChar](repeating: 0, count: 256)
guard openpty(&masterSide, &slave, &name, nil, nil) == 0 else { print("Error: openpty failed"); exit(1) }
let master = masterSide
let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
var settings = termios()
tcgetattr(slave, &settings)
cfmakeraw(&settings)
tcsetattr(slave, TCSANOW, &settings)

let manager = LocationManager.serial(path: path, baudRate: .fixed(115200))
let stream = manager.delegate()
let arrivals = Mutex<[ContinuousClock.Instant]>([])
let subscriber = Task.detached {
  for await action in stream {
    if case .didUpdateLocations = action {
      let now = ContinuousClock.now
      arrivals.withLock { $0.append(now) }
    }
  }
}
await manager.startUpdatingLocation()
try await Task.sleep(for: .milliseconds(500))

/// Writes epochs at 10 Hz; returns when each epoch's last byte was written.
@MainActor
func stream(_ count: Int, from first: Int) async throws -> [ContinuousClock.Instant] {
  var written: [ContinuousClock.Instant] = []
  let clock = ContinuousClock()
  let start = clock.now
  for index in 0..<count {
    try await clock.sleep(until: start.advanced(by: .milliseconds(100 * index)), tolerance: .zero)
    let bytes = epoch(first + index)
    _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    written.append(.now)
  }
  return written
}

print("latency: \(epochs) epochs at 10 Hz through \(path) (pty), 4 sentences per epoch")
let written = try await stream(epochs, from: 0)
try await Task.sleep(for: .milliseconds(500))
let received = arrivals.withLock { $0 }
// The first epochs teach the assembler where a cycle ends; they are not counted.
let warmup = 5
var latencies: [Double] = []
for index in warmup..<min(written.count, received.count) {
  let duration = written[index].duration(to: received[index])
  latencies.append(Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15)
}
latencies.sort()
let sorted = latencies
func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print("  received \(received.count) of \(written.count) locations")
print("  p50 \(format3(percentile(0.50))) ms   p99 \(format3(percentile(0.99))) ms   max \(format3(sorted.last ?? 0)) ms")

print("cpu: idle \(idleSeconds) s with the port open, then streaming \(streamSeconds) s at 10 Hz (this process, writer included)")
var before = cpuSeconds()
try await Task.sleep(for: .seconds(idleSeconds))
var used = cpuSeconds() - before
print("  idle:      \(format3(used / Double(idleSeconds) * 100)) % of one core")
before = cpuSeconds()
_ = try await stream(streamSeconds * 10, from: epochs)
used = cpuSeconds() - before
print("  streaming: \(format3(used / Double(streamSeconds) * 100)) % of one core")
await manager.stopUpdatingLocation()
subscriber.cancel()

func format3(_ value: Double) -> String { String((value * 1000).rounded() / 1000) }
