// What NMEA out (`serve --nmea-tcp`) adds to a receiver's latency: epochs written to a pty at
// 10 Hz are read by a receiver; a listener notes when each fix reaches it (the receiver's
// latency ends there), and 64 TCP clients of an NMEAOutput note when the GGA written from that
// fix reaches them. The added latency is the difference, per client and epoch.
//
//   swift run -c release nmea-latency [--epochs N] [--clients N]
//
// Defaults: 600 epochs (a minute at 10 Hz), 64 clients.
import Dispatch
import FoundationEssentials
import GPSD
import NMEA
import NMEASimulation
import Plumbing
import Station
import Transports

var epochs = 600, clientCount = 64
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  let value = arguments.popFirst().flatMap(Int.init)
  switch (argument, value) {
  case ("--epochs", let value?): epochs = value
  case ("--clients", let value?): clientCount = value
  default:
    print("USAGE: nmea-latency [--epochs N] [--clients N]")
    exit(64)
  }
}

/// Epoch `index` at 10 Hz: a receiver's sentences, written from a made-up fix moving north.
func epoch(_ index: Int) -> [UInt8] {
  let time = UTCTimestamp(nanosecondsSince1970: 1_714_550_400_000_000_000 + Int64(index) * 100_000_000)
  var fix = Fix(
    time: time.time, timestamp: time, mode: .threeD, quality: .gps, latitude: 48.1 + Double(index) * 1e-6, longitude: 11.5,
    speed: 10, course: 0)
  fix.altitude = 500
  fix.hdop = 0.9
  fix.satellitesUsed = 12
  return FixSentences.sentences(for: fix)
}

var masterSide: CInt = -1, slave: CInt = -1
var name = [CChar](repeating: 0, count: 256)
guard openpty(&masterSide, &slave, &name, nil, nil) == 0 else {
  print("Error: openpty failed")
  exit(1)
}
let master = masterSide
let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
var settings = termios()
tcgetattr(slave, &settings)
cfmakeraw(&settings)
tcsetattr(slave, TCSANOW, &settings)

let receiver = ReceiverSource.serial(path: path, baudRate: .fixed(115_200)).receiver
/// The system's clock (`CLOCK_REALTIME`, as the kernel's receive stamps are), in nanoseconds.
@Sendable func realTime() -> Int64 {
  var now = timespec()
  clock_gettime(CLOCK_REALTIME, &now)
  return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// When each epoch's fix reached the receiver's listener, by its time (tenths of a second).
let fixed = Locked([Int64: Int64]())
let listener = receiver.listen(wanting: .fixes) { event in
  guard case .fix(let fix) = event, let time = fix.timestamp else { return }
  let now = realTime()
  fixed.withLock { $0[time.nanosecondsSince1970 / 100_000_000] = now }
}
let output: NMEAOutput
do {
  output = try NMEAOutput(.init(tcp: GPSDAddress(host: "127.0.0.1", port: 0)))
} catch {
  print("Error: \(error)")
  exit(1)
}
let sending = Task { await output.follow(receiver, writingFromFixes: true) }
guard let port = output.tcpPort else {
  print("Error: NMEA output has no port")
  exit(1)
}

/// When each client got each epoch's GGA, by the epoch's time (tenths of a second): the time
/// the kernel stamped on the bytes as they reached the client's socket (`SO_TIMESTAMPNS`), so
/// what is measured is when each socket had the epoch, not how soon one reader of 64 sockets
/// (or 64 threads on a machine of 2 cores) got round to it.
let arrived = Locked([[Int64: Int64]](repeating: [:], count: clientCount))
/// Reads with the kernel's stamp, and without (timed by the reader instead, later).
let stamps = Locked((stamped: 0, unstamped: 0, untimed: 0))
var sockets: [FileDescriptor] = []
for index in 0..<clientCount {
  do {
    let socket = try FileDescriptor.connectTCP(host: "127.0.0.1", port: port)
    var on: CInt = 1
    guard setsockopt(socket.rawValue, SOL_SOCKET, SO_TIMESTAMPNS, &on, socklen_t(MemoryLayout<CInt>.size)) == 0 else {
      print("Error: the system stamps no receive times (SO_TIMESTAMPNS): \(Errno.current)")
      exit(1)
    }
    sockets.append(socket)
  } catch {
    print("Error: client \(index) cannot connect: \(error)")
    exit(1)
  }
}

/// Reads what `socket` holds into `buffer`: the byte count and the kernel's receive stamp of
/// the last of them (nanoseconds of `CLOCK_REALTIME`), or nil at its end.
@Sendable func receive(_ socket: CInt, into buffer: inout [UInt8]) -> (count: Int, stamp: Int64?)? {
  var control = [UInt8](repeating: 0, count: 64)
  return buffer.withUnsafeMutableBytes { bytes in
    control.withUnsafeMutableBytes { control in
      var vector = iovec(iov_base: bytes.baseAddress, iov_len: bytes.count)
      return withUnsafeMutablePointer(to: &vector) { vector in
        var message = msghdr()
        message.msg_iov = vector
        message.msg_iovlen = 1
        message.msg_control = control.baseAddress
        message.msg_controllen = control.count
        let got = recvmsg(socket, &message, 0)
        guard got > 0 else { return nil }
        // One control message at most: `struct cmsghdr` (length, level, type) and a timespec.
        var stamp: Int64?
        let header = MemoryLayout<Int>.size + 2 * MemoryLayout<CInt>.size
        if message.msg_controllen >= header + MemoryLayout<timespec>.size,
          control.load(fromByteOffset: MemoryLayout<Int>.size, as: CInt.self) == SOL_SOCKET,
          control.load(fromByteOffset: MemoryLayout<Int>.size + MemoryLayout<CInt>.size, as: CInt.self) == SO_TIMESTAMPNS
        {
          let time = control.loadUnaligned(fromByteOffset: header, as: timespec.self)
          stamp = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
        }
        return (got, stamp)
      }
    }
  }
}
let clients = sockets
detachThread {
  var buffer = [UInt8](repeating: 0, count: 65_536)
  var lines = [[UInt8]](repeating: [], count: clients.count)
  var descriptors = clients.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
  while true {
    guard poll(&descriptors, nfds_t(descriptors.count), 5_000) > 0 else { return }
    for index in descriptors.indices where descriptors[index].revents != 0 {
      guard let (got, stamp) = receive(descriptors[index].fd, into: &buffer) else { return }
      let now = stamp ?? realTime()
      stamps.withLock { stamp == nil ? ($0.unstamped += 1) : ($0.stamped += 1) }
      // The stamp is that of the read's last bytes: a read that holds more than one epoch's GGA
      // (its reader fell an epoch behind) times only the last of them; the earlier ones are
      // counted apart, untimed, rather than given a later epoch's time.
      var ggas: [Int64] = []
      for byte in buffer[0..<got] {
        guard byte == 0x0A else {
          lines[index].append(byte)
          continue
        }
        let line = lines[index]
        // $GNGGA,hhmmss.ss,…: the time of day, in tenths since 1970 (the epochs are of 2024-05-01).
        if line.count > 17, line[3] == UInt8(ascii: "G"), line[4] == UInt8(ascii: "G"), line[5] == UInt8(ascii: "A") {
          let digits = line[7..<16].filter { $0 != UInt8(ascii: ".") }.map { Int64($0 - 48) }
          let (h, m, s, c) = (
            digits[0] * 10 + digits[1], digits[2] * 10 + digits[3], digits[4] * 10 + digits[5], digits[6] * 10 + digits[7]
          )
          ggas.append(17_145_216_000 + (h * 3600 + m * 60 + s) * 10 + c / 10)
        }
        lines[index].removeAll(keepingCapacity: true)
      }
      if let last = ggas.last { arrived.withLock { $0[index][last] = now } }
      if ggas.count > 1 { stamps.withLock { $0.untimed += ggas.count - 1 } }
    }
  }
}

// The receiver opens its port when wanted (the listener wants fixes): a moment for it.
try await Task.sleep(for: .seconds(1))
print("nmea-latency: \(epochs) epochs at 10 Hz through \(path) (pty), \(clientCount) TCP clients of NMEA out")
let clock = ContinuousClock()
let start = clock.now
for index in 0..<epochs {
  try await clock.sleep(until: start.advanced(by: .milliseconds(100 * index)), tolerance: .zero)
  let bytes = epoch(index)
  _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
}
try await Task.sleep(for: .seconds(1))

let fixes = fixed.withLock { $0 }
var added: [Double] = []
var missing = 0
for perClient in arrived.withLock({ $0 }) {
  for (tenths, fixAt) in fixes {
    guard let at = perClient[tenths] else {
      missing += 1
      continue
    }
    added.append(Double(at - fixAt) / 1e6)
  }
}
added.sort()
let sorted = added
func percentile(_ p: Double) -> Double { sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
func format3(_ value: Double) -> String { String((value * 1000).rounded() / 1000) }
print(
  "  fixes at the receiver: \(fixes.count) of \(epochs); GGAs received: \(added.count) of \(fixes.count * clientCount) (\(missing) missing)"
)
print(
  "  added latency, fix to each client's GGA: p50 \(format3(percentile(0.5))) ms   p99 \(format3(percentile(0.99))) ms   max \(format3(added.last ?? .nan)) ms"
)
let (stamped, unstamped, untimed) = stamps.withLock { $0 }
print("  clients dropped: \(output.statistics.dropped); reads timed by the kernel's receive stamp: \(stamped) of \(stamped + unstamped)")
print("  GGAs read together with a later epoch's, so untimed (counted as missing above): \(untimed)")
receiver.stopListening(listener)
sending.cancel()
output.stop()
