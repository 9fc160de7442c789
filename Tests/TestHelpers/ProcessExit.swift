import Foundation

extension Process {
  /// Waits for the process to end, at most `bound`, looking every 5 ms. Foundation's
  /// `waitUntilExit()` runs a run loop on the calling thread, and on one of the test runner's
  /// pool threads it was seen to spin for a minute; this never blocks longer than `bound`.
  public func waitForExit(bound: Duration = .seconds(60)) {
    _ = eventuallyBlocking(timeout: bound) { !isRunning }
  }

  /// Its exit status, or `nil` while it runs: Foundation's `terminationStatus` traps on a
  /// process still running, and a test that asked it after a wait that timed out ended the
  /// whole test run with SIGILL.
  public var exitStatus: Int32? { isRunning ? nil : terminationStatus }
}
