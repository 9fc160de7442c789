// The NMEA benchmark: how fast bytes become sentences, messages and fixes, against a
// checksum-only scan of the same bytes measured in the same run.
//
//   swift run -c release nmea-benchmark [--epochs N] [--write FILE]
//
// All figures come from this run on this machine; compare ratios, not absolute numbers,
// across machines. Heap allocations are counted by interposing malloc (see MallocCounter).
import MallocCounter
import NMEA
import NMEASimulation
import Plumbing

var epochs = 100_000
var writePath: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--epochs": epochs = Int(arguments.popFirst() ?? "") ?? epochs
  case "--write": writePath = arguments.popFirst()
  case "--help", "-h":
    print(
      "USAGE: nmea-benchmark [--epochs N] [--write FILE]\n\n  --epochs N    1 Hz epochs of a simulated u-blox receiver, about 10 sentences each (default: 100000)\n  --write FILE  also write the generated stream to FILE, for comparing other parsers"
    )
    exit(0)
  default:
    print("Error: unknown argument '\(argument)'. See 'nmea-benchmark --help'.")
    exit(64)
  }
}

// A u-blox receiver in NMEA 4.10 (system and signal IDs), 1 Hz, driving the demo route and on.
let stream = Simulation(route: Route.demoDrive.lasting(Double(epochs)), profile: .ublox).capture()
if let writePath { writeFile(writePath, stream) }
let chunkSize = 4096
print("stream: \(epochs) epochs, \(stream.count) bytes, fed in \(chunkSize)-byte chunks; best of 5 runs")

struct Measurement {
  var seconds: Double
  var sentences: Int
  var allocations: UInt64
  var extra: String = ""
}

/// Runs `body` five times and keeps the fastest, counting allocations in that run.
func measure(_ body: () -> (Int, String)) -> Measurement {
  var best: Measurement?
  for _ in 0..<5 {
    let allocationsBefore = mallocCounterAllocations()
    let start = ContinuousClock.now
    let (sentences, extra) = body()
    let elapsed = ContinuousClock.now - start
    let allocations = mallocCounterAllocations() - allocationsBefore
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    if best == nil || seconds < best!.seconds {
      best = Measurement(seconds: seconds, sentences: sentences, allocations: allocations, extra: extra)
    }
  }
  return best!
}

/// The baseline: find each `$`, XOR to the `*`, compare the two hex digits. No framing rules,
/// no decoding: the least any NMEA reader must do.
func checksumOnlyScan(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
  var valid = 0
  var index = 0
  let count = bytes.count
  while index < count {
    guard bytes[index] == UInt8(ascii: "$") else {
      index += 1
      continue
    }
    index += 1
    var checksum: UInt8 = 0
    while index < count, bytes[index] != UInt8(ascii: "*") {
      checksum ^= bytes[index]
      index += 1
    }
    guard index + 2 < count else { break }
    let high = hexValue(bytes[index + 1])
    let low = hexValue(bytes[index + 2])
    if high << 4 | low == checksum { valid += 1 }
    index += 3
  }
  return valid
}

@inline(__always)
func hexValue(_ byte: UInt8) -> UInt8 {
  byte <= UInt8(ascii: "9") ? byte &- UInt8(ascii: "0") : (byte | 0x20) &- UInt8(ascii: "a") &+ 10
}

let baseline = measure {
  var total = 0
  stream.withUnsafeBufferPointer { buffer in
    var start = 0
    while start < buffer.count {
      let end = min(buffer.count, start + chunkSize)
      total += checksumOnlyScan(UnsafeBufferPointer(rebasing: buffer[start..<end]))
      start = end
    }
  }
  return (total, "")
}

func feedChunks(_ body: (UnsafeRawBufferPointer) -> Void) {
  stream.withUnsafeBytes { raw in
    var start = 0
    while start < raw.count {
      let end = min(raw.count, start + chunkSize)
      body(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
      start = end
    }
  }
}

let framing = measure {
  var framer = Framer()
  var count = 0
  feedChunks { chunk in
    framer.append(chunk)
    while framer.next() != nil { count += 1 }
  }
  return (count, "")
}

var decodedSink = 0
let decoding = measure {
  var framer = Framer()
  var count = 0
  var failures = 0
  feedChunks { chunk in
    framer.append(chunk)
    while let sentence = framer.next() {
      count += 1
      do {
        switch try Message(sentence) {
        case .gga(let gga): decodedSink &+= gga.satellitesUsed ?? 0
        case .gsv(let gsv): decodedSink &+= gsv.satellites.count
        default: decodedSink &+= 1
        }
      } catch {
        failures += 1
      }
    }
  }
  return (count, "decode errors: \(failures)")
}

let assembling = measure {
  var decoder = FixDecoder()
  var fixes = 0
  feedChunks { chunk in
    decoder.append(chunk)
    while decoder.next() != nil { fixes += 1 }
  }
  decoder.finish()
  while decoder.next() != nil { fixes += 1 }
  return (decoder.framer.counters.sentences, "fixes: \(fixes)")
}

func report(_ name: String, _ m: Measurement) {
  let perSecond = Double(m.sentences) / m.seconds
  let megabytes = Double(stream.count) / m.seconds / 1_000_000
  let nanoseconds = m.seconds / Double(m.sentences) * 1e9
  let allocations = Double(m.allocations) / Double(m.sentences)
  let ratio = m.seconds / baseline.seconds
  print(
    "\(name.padding(28))\(format(perSecond / 1e6, 2).leftPadding(8)) M sentences/s \(format(megabytes, 0).leftPadding(6)) MB/s"
      + "\(format(nanoseconds, 1).leftPadding(8)) ns/sentence \(format(allocations, 4).leftPadding(8)) allocs/sentence"
      + "   \(format(ratio, 2))× baseline time" + (m.extra.isEmpty ? "" : "   (\(m.extra))"))
}

report("checksum-only scan (baseline)", baseline)
report("Framer (sentences)", framing)
report("Framer + Message (full decode)", decoding)
report("FixDecoder (decode + epochs)", assembling)
if decodedSink == 42 { print("") }  // keeps the decode from being optimised away

func format(_ value: Double, _ decimals: Int) -> String {
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let rounded = (value * scale).rounded() / scale
  var text = String(rounded)
  if let dot = text.firstIndex(of: ".") {
    let have = text.distance(from: dot, to: text.endIndex) - 1
    if decimals == 0 { text = String(text[..<dot]) } else if have < decimals { text += String(repeating: "0", count: decimals - have) }
  }
  return text
}

extension String {
  func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
  func leftPadding(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
