import Foundation

extension Process {
  /// Waits for the process to end, at most `bound`, looking every 5 ms. Foundation's
  /// `waitUntilExit()` runs a run loop on the calling thread, and on one of the test runner's
  /// pool threads it was seen to spin for a minute; this never blocks longer than `bound`.
  public func waitForExit(bound: Duration = .seconds(60)) {
    _ = eventuallyBlocking(timeout: bound) { !isRunning }
  }
}
