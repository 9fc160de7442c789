import FoundationEssentials
import GPSLocation
import NMEA
// The engine and broadcaster: actions per second, and what monitored regions cost per fix.
//
//   swift run -c release engine-benchmark [--fixes N] [--regions N]
//
// Figures are from this run; compare the ratios (cost with regions over cost without).
import Plumbing

var fixCount = 200_000
var regionCounts = [0, 10, 1_000, 10_000, 100_000]
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  if argument == "--fixes", let value = arguments.popFirst().flatMap(Int.init) { fixCount = value }
  if argument == "--regions", let value = arguments.popFirst().flatMap(Int.init) { regionCounts = [value] }
}

/// A drive at 10 Hz and 15 m/s heading north-east, turning slowly.
func makeFixes(_ count: Int) -> [Fix] {
  var fixes: [Fix] = []
  fixes.reserveCapacity(count)
  let start = UTCTimestamp(date: UTCDate(year: 2024, month: 5, day: 1), time: UTCTime(hour: 8, minute: 0, second: 0))
  var latitude = 47.0, longitude = 8.0, course = 45.0
  for index in 0..<count {
    let stamp = UTCTimestamp(nanosecondsSince1970: start.nanosecondsSince1970 + Int64(index) * 100_000_000)
    fixes.append(
      Fix(
        time: stamp.time, timestamp: stamp, mode: .threeD, quality: .gps, latitude: latitude, longitude: longitude,
        altitude: 400, speed: 15, course: course, satellitesUsed: 10, hdop: 0.9, horizontalAccuracy: 4.5))
    course = (course + 0.05).truncatingRemainder(dividingBy: 360)
    latitude += 1.5 * cos(course * .pi / 180) / 111_195
    longitude += 1.5 * sin(course * .pi / 180) / (111_195 * cos(latitude * .pi / 180))
  }
  return fixes
}

func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let fixes = makeFixes(fixCount)
print("\(fixCount) fixes at 10 Hz; best of 3 runs")

// 1. Engine alone: updates and heading on, every fix delivered.
var best = Double.infinity
var actionCount = 0
for _ in 0..<3 {
  var engine = LocationEngine()
  engine.startUpdatingLocation()
  engine.startUpdatingHeading()
  let clock = ContinuousClock()
  let start = clock.now
  var count = 0
  for fix in fixes { count += engine.handle(fix).count }
  best = min(best, seconds(start.duration(to: clock.now)))
  actionCount = count
}
print(
  "engine (updates + heading)      \(Int(Double(actionCount) / best / 1000)) k actions/s   (\(actionCount) actions in \(String(format3(best))) s)"
)

// 2. Engine and broadcaster with one subscriber reading concurrently.
do {
  let broadcaster = Broadcaster<LocationManager.Action>(bufferLimit: 1 << 20)
  let stream = broadcaster.subscribe()
  // Detached: a Task here would inherit the main actor that the loop below keeps busy.
  let reader = Task.detached {
    var received = 0
    for await _ in stream { received += 1 }
    return received
  }
  var engine = LocationEngine()
  engine.startUpdatingLocation()
  engine.startUpdatingHeading()
  let clock = ContinuousClock()
  let start = clock.now
  for fix in fixes {
    for action in engine.handle(fix) { broadcaster.yield(action) }
  }
  broadcaster.finish()
  let received = await reader.value
  let elapsed = seconds(start.duration(to: clock.now))
  print(
    "engine + broadcaster + reader   \(Int(Double(received) / elapsed / 1000)) k actions/s   (\(received) received in \(format3(elapsed)) s)"
  )
}

// 3. Region cost per fix: 50 m regions on a 300 m grid around the route.
func regions(_ count: Int) -> [Region] {
  let side = max(1, Int(Double(count).squareRoot().rounded(.up)))
  return (0..<count).map { index in
    // Centred on the route, which circles within 2 km of its start.
    let north = Double(index / side) * 300 - Double(side) * 150
    let east = Double(index % side) * 300 - Double(side) * 150
    return Region(
      identifier: "r\(index)",
      center: LocationCoordinate2D(latitude: 47 + north / 111_195, longitude: 8 + east / (111_195 * 0.682)),
      radius: 50)
  }
}

let regionFixes = Array(fixes.prefix(50_000))
var baseline = 0.0
var tenRegions = 0.0
print(
  "\nper-fix cost with monitored regions (\(regionFixes.count) fixes; the route crosses the grid), and the time to add them and decide their state:"
)
for count in regionCounts {
  var bestTime = Double.infinity
  var bestAdding = Double.infinity
  var transitions = 0
  let made = regions(count)
  for _ in 0..<3 {
    var engine = LocationEngine()
    let clock = ContinuousClock()
    // Adding the regions and deciding each one's state (the first fix) is the set-up cost;
    // every later fix is the cost of monitoring them.
    let adding = clock.now
    for region in made { _ = engine.startMonitoring(region) }
    var actions = engine.handle(regionFixes[0]).count
    bestAdding = min(bestAdding, seconds(adding.duration(to: clock.now)))
    let start = clock.now
    for fix in regionFixes.dropFirst() { actions += engine.handle(fix).count }
    bestTime = min(bestTime, seconds(start.duration(to: clock.now)))
    transitions = actions
  }
  let perFix = bestTime / Double(regionFixes.count - 1) * 1e9
  if count == 0 { baseline = perFix }
  if count == 10 { tenRegions = perFix }
  let versusNone = baseline > 0 ? perFix / baseline : 1
  let versusTen = tenRegions > 0 ? perFix / tenRegions : 1
  print(
    "  \(String(count).padding(7)) regions  \(format3(perFix / 1000).padding(7)) µs/fix  \(format3(versusNone).padding(6))× none  "
      + "\(format3(versusTen).padding(6))× ten   added in \(format3(bestAdding)) s   (\(transitions) region actions)")
}

func format3(_ value: Double) -> String {
  let scaled = (value * 1000).rounded() / 1000
  return String(scaled)
}

extension String {
  func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
