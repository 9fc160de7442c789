// The framing stages against a `memchr` scan of the same bytes: what every byte a replay reads
// costs before the NMEA framer sees it. On all-NMEA input the splitter only looks for a binary
// frame's first byte (UBX's 0xB5, RTCM 3's 0xD3), and the capture's line sorter only for a `{`
// that begins a line (a gpsd report): each should cost about one `memchr` over contiguous bytes.
//
//   swift run -c release framing-benchmark FILE [--rounds N]
//
// The file is read once into memory and handed over in 64 KiB pieces, as a replay reads it.
// Prints the best of N rounds (default 20) for each stage and for memchr, in milliseconds, and
// each stage's time as a multiple of memchr's; Scripts/check-budgets reads the last line.
import Framing
import Plumbing
import Transports

var arguments = CommandLine.arguments.dropFirst()
var path: String?
var rounds = 20
while let argument = arguments.popFirst() {
  switch argument {
  case "--rounds": rounds = Int(arguments.popFirst() ?? "") ?? rounds
  case "--help", "-h":
    print("USAGE: framing-benchmark <file> [--rounds N]")
    exit(0)
  default: path = argument
  }
}
guard let path, let file = fopen(path, "rb") else {
  print("Error: give a capture to read, like: framing-benchmark capture.nmea (gpsbridge simulate --output makes one)")
  exit(64)
}
var bytes: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 1 << 20)
while true {
  let count = fread(&chunk, 1, chunk.count, file)
  if count <= 0 { break }
  bytes += chunk[0..<count]
}
fclose(file)
let piece = 65_536

/// The best time of `rounds` runs of `body` over every piece, in milliseconds, and what the
/// last run found (so that no run can be optimised away).
@MainActor func best(_ body: (UnsafeRawBufferPointer) -> Int) -> (milliseconds: Double, found: Int) {
  var fastest = Double.infinity
  var found = 0
  for _ in 0..<rounds {
    let start = ContinuousClock.now
    var total = 0
    bytes.withUnsafeBytes { all in
      var offset = 0
      while offset < all.count {
        let end = min(all.count, offset + piece)
        total &+= body(UnsafeRawBufferPointer(rebasing: all[offset..<end]))
        offset = end
      }
    }
    let elapsed = start.duration(to: .now)
    fastest = min(fastest, Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
    found = total
  }
  return (fastest, found)
}

/// `value` with `decimals` digits after the point.
func fixed(_ decimals: Int, _ value: Double) -> String {
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let scaled = Int((value * scale).rounded())
  let whole = scaled / Int(scale), fraction = String(scaled % Int(scale))
  return "\(whole)." + String(repeating: "0", count: decimals - fraction.count) + fraction
}

let memchrScan = best { raw in
  // The two first bytes the splitter looks for, each with the C library's memchr.
  (memchr(raw.baseAddress!, 0xB5, raw.count) == nil ? 0 : 1) + (memchr(raw.baseAddress!, 0xD3, raw.count) == nil ? 0 : 1)
}
let splitter = StreamSplitter()
let splitting = best { raw in splitter.mayHoldFrames(raw) ? 1 : 0 }
var lines = CaptureLines()
let sorting = best { raw in
  var handed = 0
  lines.sort(raw, other: { handed &+= $0.count }, report: { _ in })
  return handed
}
print("capture: \(bytes.count) bytes in \(piece / 1024) KiB pieces, best of \(rounds) rounds")
print("memchr (0xB5, then 0xD3)   \(fixed(3, memchrScan.milliseconds)) ms")
print(
  "splitter (binary frames)   \(fixed(3, splitting.milliseconds)) ms   \(fixed(2, splitting.milliseconds / memchrScan.milliseconds))× memchr"
)
print(
  "line sorter (gpsd reports) \(fixed(3, sorting.milliseconds)) ms   \(fixed(2, sorting.milliseconds / memchrScan.milliseconds))× memchr")
let stages = splitting.milliseconds + sorting.milliseconds
print("framing stages: \(fixed(3, stages)) ms, \(fixed(2, stages / memchrScan.milliseconds))× memchr")
