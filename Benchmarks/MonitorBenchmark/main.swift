import FoundationEssentials
import GPSLocation
import NMEASimulation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// A Monitor with many conditions: how long adding them (and writing its state) takes, how
// long opening it again (reading the state, monitoring every condition) takes, and the file.
//
//   swift run -c release monitor-benchmark [--conditions N] [--rounds N]
//
// The goal (issue "today's CoreLocation shape"): restoring 100,000 conditions within 1 s.
// Each round starts from an empty directory; the figures are the rounds' minimum and median.

var conditionCount = 100_000
var rounds = 5
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  if argument == "--conditions", let value = arguments.popFirst().flatMap(Int.init) { conditionCount = value }
  if argument == "--rounds", let value = arguments.popFirst().flatMap(Int.init) { rounds = value }
}

/// Circles of 50 to 500 m scattered over Switzerland, the same every run.
var generator = SplitMix64(seed: 1)
var conditions: [String: MonitorCondition] = [:]
for index in 0..<conditionCount {
  let center = LocationCoordinate2D(
    latitude: Double.random(in: 45.8..<47.8, using: &generator), longitude: Double.random(in: 5.9..<10.5, using: &generator))
  conditions["place-\(index)"] = .circle(center: center, radius: Double.random(in: 50..<500, using: &generator))
}

/// A manager over a short replay that has not started: the engine is real, no fix arrives
/// before the conditions are in.
func manager() -> LocationManager {
  .replay(capture: .simulated(Simulation(route: Route.demoDrive.lasting(5))), speed: .realTime)
}

func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let clock = ContinuousClock()
var adds: [Double] = []
var restores: [Double] = []
var fileSize = 0
let base = "/tmp/monitor-benchmark-\(getpid())"
for round in 0..<rounds {
  let directory = "\(base)/\(round)"
  let first = try await Monitor.open("bench", for: manager(), storage: .directory(directory))
  let addStart = clock.now
  await first.add(conditions)
  adds.append(seconds(addStart.duration(to: clock.now)))
  await first.close()
  let restoreStart = clock.now
  let second = try await Monitor.open("bench", for: manager(), storage: .directory(directory))
  let restored = await second.identifiers.count
  restores.append(seconds(restoreStart.duration(to: clock.now)))
  precondition(restored == conditionCount, "restored \(restored) of \(conditionCount) conditions")
  await second.close()
  var status = stat()
  if stat("\(directory)/bench.monitor.json", &status) == 0 { fileSize = Int(status.st_size) }
  unlink("\(directory)/bench.monitor.json")
  rmdir(directory)
}
rmdir(base)

func summary(_ values: [Double]) -> String {
  let sorted = values.sorted()
  func milliseconds(_ value: Double) -> String { "\(Int((value * 1000).rounded())) ms" }
  return "min \(milliseconds(sorted[0])), median \(milliseconds(sorted[sorted.count / 2]))"
}
print("conditions                          \(conditionCount)")
print("add (and write the state)           \(summary(adds))")
print("open again (read, monitor them all) \(summary(restores))   goal ≤ 1 s at 100,000")
print("state file                          \(fileSize / 1024) KiB")
