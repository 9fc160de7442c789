import FoundationEssentials
import TimeService

/// `gpsbridge time`: asks chrony once whether it uses a reference clock; 0 when it does, 1
/// with the reason when it does not or cannot be asked.
func checkTime(_ options: TimeOptions) -> Int32 {
  let check: ChronyCheck
  do {
    check = try ChronyCheck.ask(control: options.control)
  } catch {
    Terminal.diagnostic("Error: \(error)")
    return 1
  }
  let used = check.usesReferenceClock
  if options.json {
    struct Report: Encodable {
      var usesReferenceClock: Bool
      var findings: [String]
      var referenceClocks: [Clock]
      struct Clock: Encodable {
        var name: String
        var state: String
        var reach: Int
        var offset: Double?
      }
    }
    let report = Report(
      usesReferenceClock: used, findings: check.findings,
      referenceClocks: check.referenceClocks.map { .init(name: $0.name, state: String($0.state), reach: $0.reach, offset: $0.offset) })
    Terminal.write(encodedJSON(report) + "\n")
  } else {
    for finding in check.findings { Terminal.write(finding + "\n") }
  }
  guard used else {
    Terminal.diagnostic("Error: chrony does not steer the clock by any of its reference clocks (see above).")
    return 1
  }
  return 0
}
