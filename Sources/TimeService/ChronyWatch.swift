import Plumbing

/// Asks chrony now and then what it makes of its reference clocks (``ChronyCheck``), keeps the
/// latest answer for a status page and metrics, and says each finding once when it changes:
/// feeding a refclock says nothing of whether chrony uses it, so a box that serves time keeps
/// asking.
public final class ChronyWatch: Sendable {
  /// chrony's command socket, as `chronyc -h` takes it.
  public let control: String
  /// How often chrony is asked once it uses a reference clock; until then, every
  /// ``settlingInterval``, so a box being set up shows chrony's view within seconds.
  public let interval: Duration
  public static let settlingInterval: Duration = .seconds(5)
  /// Samples sent before a reference clock that chrony has not reached is said (two of
  /// chrony's 16 s polls, and some).
  public static let samplesBeforeJudging = 40
  private let answer = Locked<Result<ChronyCheck, ChronyCheck.Failure>?>(nil)

  public init(control: String = ChronyCheck.defaultControl, every interval: Duration = .seconds(30)) {
    self.control = control
    self.interval = interval
  }

  /// chrony's latest answer, `nil` before the first.
  public var latest: Result<ChronyCheck, ChronyCheck.Failure>? { answer.withLock { $0 } }

  /// Asks every ``interval`` (``settlingInterval`` while chrony uses no reference clock) until the task is cancelled, saying through `said` each finding
  /// that was not said the time before (and a failure to ask, once until it changes).
  /// chronyc runs on a thread of its own, never on the cooperative pool.
  ///
  /// `samplesSent` counts the samples chrony was sent so far: a reference clock chrony has not
  /// reached yet is not said to get nothing until some 40 samples went (chrony polls a SOCK
  /// refclock every 16 s), so a receiver not yet opened, or without a fix, is no "reach 0".
  public func run(samplesSent: @escaping @Sendable () -> Int = { .max }, said: @escaping @Sendable (String) -> Void) async {
    var lastSaid: [String] = []
    while !Task.isCancelled {
      let control = control
      let result = await withCheckedContinuation { continuation in
        detachThread {
          continuation.resume(returning: Result { () throws(ChronyCheck.Failure) in try ChronyCheck.ask(control: control) })
        }
      }
      answer.withLock { $0 = result }
      // Said again only when what chrony makes of a clock changes, not its offset.
      let findings: [(key: String, text: String)]
      switch result {
      case .success(let check) where check.referenceClocks.isEmpty:
        findings = check.findings.map { ($0, $0) }
      case .success(let check):
        let settling = samplesSent() < Self.samplesBeforeJudging
        findings = check.referenceClocks.filter { !(settling && $0.reach == 0) }.map { clock in
          ("\(clock.name) \(clock.state) \(clock.reach == 0) \(clock.noselect)", ChronyCheck.finding(clock))
        }
      case .failure(let failure): findings = [(failure.description, failure.description)]
      }
      for finding in findings where !lastSaid.contains(finding.key) { said("chrony: " + finding.text) }
      lastSaid = findings.map(\.key)
      let settled = (try? result.get())?.usesReferenceClock ?? false
      guard await sleepUnlessCancelled(settled ? interval : Self.settlingInterval) else { return }
    }
  }
}
