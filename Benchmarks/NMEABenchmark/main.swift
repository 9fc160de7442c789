// The NMEA benchmark: how fast bytes become sentences, messages and fixes, against a
// checksum-only scan of the same bytes written in C, measured in the same run.
//
//   swift run -c release nmea-benchmark [--epochs N] [--write FILE]
//
// All figures come from this run on this machine; compare ratios, not absolute numbers,
// across machines. Heap allocations are counted by interposing malloc (see MallocCounter).
import ChecksumScan
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
// A u-blox receiver in NMEA 4.10 (system and signal IDs), 1 Hz, driving the demo route and on.
let stream = Simulation(route: Route.demoDrive.lasting(Double(epochs)), profile: .ublox).capture()
if let writePath { writeFile(writePath, stream) }
let chunkSize = 4096
let rounds = 5
print(
  "stream: \(epochs) epochs, \(stream.count) bytes, fed in \(chunkSize)-byte chunks; \(rounds) rounds, each stage once a round, best kept")

struct Measurement {
  var seconds = Double.infinity
  var sentences = 0
  var allocations: UInt64 = 0
  var extra = ""
}

/// Runs one stage and keeps its fastest run, counting its allocations.
func measure(_ best: inout Measurement, _ body: () -> (Int, String)) {
  let allocationsBefore = mallocCounterAllocations()
  let start = ContinuousClock.now
  let (sentences, extra) = body()
  let elapsed = ContinuousClock.now - start
  let allocations = mallocCounterAllocations() - allocationsBefore
  let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  if seconds < best.seconds { best = Measurement(seconds: seconds, sentences: sentences, allocations: allocations, extra: extra) }
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

/// The baseline, in C: find each `$`, XOR to the `*`, compare the two hex digits. No framing
/// rules, no decoding: the least any NMEA reader must do.
func scan() -> (Int, String) {
  var state = checksum_scan_state()
  var total = 0
  feedChunks { chunk in total += checksum_scan(chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), chunk.count, &state) }
  return (total, "")
}

func frame() -> (Int, String) {
  var framer = Framer()
  var count = 0
  feedChunks { chunk in
    framer.append(chunk)
    while framer.next() != nil { count += 1 }
  }
  return (count, "")
}

func decode() -> (Int, String) {
  var framer = Framer()
  var count = 0
  var failures = 0
  var decodedSink = 0
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
  // The sink keeps the decoding from being optimised away.
  return (count, "decode errors: \(failures)" + (decodedSink == 42 ? " " : ""))
}

/// Framing, decoding and epoch assembly, satellites in view included.
func assemble() -> (Int, String) {
  var decoder = FixDecoder()
  var fixes = 0
  feedChunks { chunk in
    decoder.append(chunk)
    while let fix = decoder.next() { fixes += fix.satellites.isEmpty ? 0 : 1 }
  }
  decoder.finish()
  while decoder.next() != nil { fixes += 1 }
  return (decoder.framer.counters.sentences, "fixes: \(fixes)")
}

/// What `gpsbridge check` does per byte: the sentence tally, the fixes without satellites, the
/// first and last time stamps.
func checkLoop() -> (Int, String) {
  var decoder = FixDecoder(countsSentences: true, keepsSatellites: false)
  var positions = 0
  var last: UTCTimestamp?
  feedChunks { chunk in
    decoder.append(chunk)
    while let fix = decoder.next() {
      if fix.hasPosition { positions += 1 }
      last = fix.timestamp ?? last
    }
  }
  decoder.finish()
  while decoder.next() != nil {}
  return (decoder.framer.counters.sentences, "kinds: \(decoder.tally?.entries.count ?? 0), positions: \(positions)")
}

var results = [Measurement](repeating: Measurement(), count: 5)
for _ in 0..<rounds {
  measure(&results[0], scan)
  measure(&results[1], frame)
  measure(&results[2], decode)
  measure(&results[3], assemble)
  measure(&results[4], checkLoop)
}
let baseline = results[0]

func report(_ name: String, _ m: Measurement) {
  let perSecond = Double(m.sentences) / m.seconds
  let megabytes = Double(stream.count) / m.seconds / 1_000_000
  let nanoseconds = m.seconds / Double(m.sentences) * 1e9
  let allocations = Double(m.allocations) / Double(m.sentences)
  let ratio = m.seconds / baseline.seconds
  print(
    "\(name.padding(34))\(format(perSecond / 1e6, 2).leftPadding(7)) M sentences/s \(format(megabytes, 0).leftPadding(6)) MB/s"
      + "\(format(nanoseconds, 1).leftPadding(8)) ns/sentence \(format(allocations, 4).leftPadding(8)) allocs/sentence"
      + "\(format(ratio, 2).leftPadding(7))× the scan's time" + (m.extra.isEmpty ? "" : "   (\(m.extra))"))
}

report("checksum-only scan in C (baseline)", results[0])
report("Framer (framing)", results[1])
report("Framer + Message (decoding)", results[2])
report("FixDecoder (+ epoch assembly)", results[3])
report("check's whole loop", results[4])

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
