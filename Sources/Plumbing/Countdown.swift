/// Calls its action once, when the last of a number of parts is done: an event handed to
/// several outlets, each of which says when its part is out of the process's hands (sent and
/// acknowledged, or given up), is handled when all have.
///
/// Whoever hands the parts out holds one part of its own while it does (``add(_:)`` after the
/// end changes nothing), and says it done last. Parts said done after the end change nothing.
package final class Countdown: Sendable, Equatable {
  private let left: Locked<Int>
  private let action: @Sendable () -> Void

  /// A countdown of `parts` (the action runs at once when there are none).
  package init(_ parts: Int, then action: @escaping @Sendable () -> Void) {
    left = Locked(max(parts, 0))
    self.action = action
    if parts <= 0 { action() }
  }

  /// `parts` more to wait for; nothing once the countdown has ended.
  package func add(_ parts: Int = 1) {
    left.withLock { $0 += $0 > 0 ? parts : 0 }
  }

  /// One part is done; the last one runs the action.
  package func done() {
    let last = left.withLock { left -> Bool in
      guard left > 0 else { return false }
      left -= 1
      return left == 0
    }
    if last { action() }
  }

  package static func == (lhs: Countdown, rhs: Countdown) -> Bool { lhs === rhs }
}
