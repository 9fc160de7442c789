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

  /// Starts the process with no signal blocked. A child inherits the signal mask of the thread
  /// that spawns it, and the test runner's pool threads block SIGINT and SIGTERM: a Mosquitto
  /// or a gpsbridge started from one never hears them, so it never stops cleanly (nor saves
  /// its sessions) and is only ever SIGKILLed.
  public func runWithSignalsUnblocked() throws {
    var empty = sigset_t()
    var previous = sigset_t()
    sigemptyset(&empty)
    pthread_sigmask(SIG_SETMASK, &empty, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    try run()
  }
}
