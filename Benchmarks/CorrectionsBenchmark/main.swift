// What `serve --ntrip`'s forwarding costs, measured with real parts: a caster of this
// program's own on loopback sending a 10 Hz MSM7-sized RTCM 3 stream (a 1005 and four MSM7s of
// about 400 bytes each tenth of a second), the NTRIP client writing each frame to a receiver on
// a pseudo-terminal, and this program reading the pty's other end.
//
// - latency: from the caster's write of a frame's last byte to that byte read from the pty
//   (an upper bound on "off the socket to written to the pty": it adds the loopback's hop and
//   the pty's), p50 and p99;
// - time from connect to the first frame forwarded;
// - CPU: this process's user and system time over the run, caster and reader threads included
//   (an upper bound on the client's own), as a share of one core.
//
//   swift run -c release corrections-benchmark [--seconds S]
import Corrections
import Foundation
import Framing
import Plumbing
import Synchronization
import Transports

var seconds = 20
if let index = CommandLine.arguments.firstIndex(of: "--seconds"), index + 1 < CommandLine.arguments.count,
  let value = Int(CommandLine.arguments[index + 1])
{
  seconds = value
}

/// A frame whose message is `number` then filler: the size of an MSM7 with a dozen satellites.
func frame(_ number: Int, size: Int, sequence: Int) -> [UInt8] {
  var message = [UInt8(number >> 4), UInt8((number & 0x0F) << 4)]
  message += (0..<(size - 2)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ sequence) }
  return RTCM3Frame(message: message).bytes
}

// The caster: one client, ICY 200 OK, then a burst each 100 ms.
let listener = try FileDescriptor.listenTCP(host: "127.0.0.1", port: 0)
let port = listener.localPort!
let sentAt = Mutex<[Int: ContinuousClock.Instant]>([:])
let stop = Mutex(false)
Thread {
  var client: FileDescriptor?
  while client == nil {
    client = try? listener.accept()
    if client == nil { usleep(1000) }
  }
  guard let client else { return }
  _ = fcntl(client.rawValue, F_SETFL, fcntl(client.rawValue, F_GETFL) & ~O_NONBLOCK)
  var request = [UInt8](repeating: 0, count: 4096)
  _ = try? client.read(into: &request)
  _ = Array("ICY 200 OK\r\n".utf8).withUnsafeBytes { try? client.sendSome($0) }
  var sequence = 0
  let start = ContinuousClock.now
  var next = start
  while !stop.withLock({ $0 }) {
    var burst: [UInt8] = []
    if sequence % 10 == 0 { burst += frame(1005, size: 19, sequence: sequence) }
    for number in [1077, 1087, 1097, 1127] { burst += frame(number, size: 400, sequence: sequence) }
    // The burst's last byte is the last frame's: its sequence marks it.
    var offset = 0
    while offset < burst.count {
      let count = burst[offset...].withUnsafeBytes { (try? client.sendSome($0)) ?? 0 }
      offset += count
    }
    sentAt.withLock { $0[sequence] = .now }
    sequence += 1
    next = next.advanced(by: .milliseconds(100))
    Thread.sleep(forTimeInterval: max(0, Double((ContinuousClock.now.duration(to: next)).components.attoseconds) / 1e18))
  }
}.start()

// The receiver: a pty; its other end is read here, frame by frame.
var master: CInt = -1, slave: CInt = -1
var name = [CChar](repeating: 0, count: 256)
guard openpty(&master, &slave, &name, nil, nil) == 0 else { fatalError("no pty") }
var settings = termios()
tcgetattr(slave, &settings)
cfmakeraw(&settings)
tcsetattr(slave, TCSANOW, &settings)
let device = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
let receiver = Receiver(SerialSource(path: device, baudRate: .fixed(921_600)))
let latencies = Mutex<[Double]>([])
let firstForwarded = Mutex<ContinuousClock.Instant?>(nil)
let reading = master
Thread {
  var splitter = StreamSplitter(stages: [.rtcm3])
  var buffer = [UInt8](repeating: 0, count: 65_536)
  var sequence = 0
  while !stop.withLock({ $0 }) {
    var descriptor = pollfd(fd: reading, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, 100) > 0 else { continue }
    let count = read(reading, &buffer, buffer.count)
    guard count > 0 else { continue }
    let now = ContinuousClock.now
    buffer[0..<count].withUnsafeBytes { raw in
      splitter.split(
        raw, text: { _ in },
        frame: { frame in
          if firstForwarded.withLock({ $0 }) == nil { firstForwarded.withLock { $0 = now } }
          guard case .rtcm3(let rtcm) = frame, rtcm.messageNumber == 1127 else { return }
          if let sent = sentAt.withLock({ $0[sequence] }) {
            let (s, a) = sent.duration(to: now).components
            latencies.withLock { $0.append((Double(s) + Double(a) / 1e18) * 1000) }
          }
          sequence += 1
        })
    }
  }
}.start()

func cpuSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
    + Double(usage.ru_stime.tv_usec) / 1e6
}

let running = Task { await receiver.run() }
try await Task.sleep(for: .milliseconds(500))
let connectAt = ContinuousClock.now
// (A GGA interval given: the client asks no sourcetable first, which this one-client caster
// would answer with its stream.)
let client = NTRIPClient(
  NTRIPClient.Configuration(address: NTRIPAddress(host: "127.0.0.1", port: port, mountpoint: "BENCH"), ggaInterval: .seconds(3600)),
  receiver: receiver)
let streaming = Task { try? await client.run() }
while firstForwarded.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(5)) }
let toFirst = connectAt.duration(to: firstForwarded.withLock { $0! })
let cpuBefore = cpuSeconds()
let measuredFrom = ContinuousClock.now
try await Task.sleep(for: .seconds(seconds))
let cpu = (cpuSeconds() - cpuBefore) / Double(seconds) * 100
stop.withLock { $0 = true }
streaming.cancel()
running.cancel()
let values = latencies.withLock { $0 }.sorted()
func percentile(_ fraction: Double) -> Double {
  values.isEmpty ? .nan : values[min(values.count - 1, Int(Double(values.count) * fraction))]
}
let health = client.health
print("corrections-benchmark: a 10 Hz MSM7-sized stream (\(Int(health.bytesPerSecond)) bytes/s) for \(seconds) s")
print(
  String(
    format: "  connect to first frame forwarded: %.1f ms",
    Double(toFirst.components.attoseconds) / 1e15 + Double(toFirst.components.seconds) * 1000))
print(
  String(format: "  caster's last byte to the pty's: p50 %.3f ms, p99 %.3f ms (%d bursts)", percentile(0.5), percentile(0.99), values.count)
)
print(String(format: "  CPU %.2f%% of a core (the whole benchmark, caster and reader included)", cpu))
print("  forwarded \(health.forwarded), dropped \(health.dropped), rejects \(health.rejects)")
_ = measuredFrom
exit(0)
