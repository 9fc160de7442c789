/// Sleeps for `duration`; `false` when the task was cancelled meanwhile (time to stop).
package func sleepUnlessCancelled(_ duration: Duration) async -> Bool {
  do {
    try await Task.sleep(for: duration)
    return true
  } catch {
    return false
  }
}
