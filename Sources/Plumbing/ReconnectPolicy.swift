/// When a client of a server (the MQTT broker, the NTRIP caster) connects again after a
/// session ends, and what it says about it: a second after a session that worked, then twice
/// as long after each that did not, up to a longest wait; a reason said once while it stays
/// the same, not at every attempt. A value: the clients keep one each and tests drive it
/// without a clock.
package struct ReconnectPolicy: Sendable, Equatable {
  /// The first wait, and the wait after a session that worked.
  package static let shortest: Duration = .seconds(1)
  package let longest: Duration
  private var next = ReconnectPolicy.shortest
  private var lastReason: String?

  package init(longest: Duration) {
    self.longest = longest
  }

  /// A session ended for `reason`; `worked` when it did what it was for (connected, or
  /// delivered). Returns how long to wait before the next attempt, and whether to say the
  /// reason (it differs from the last one's).
  package mutating func ended(reason: String, worked: Bool) -> (wait: Duration, say: Bool) {
    if worked { next = Self.shortest }
    let wait = min(next, longest)
    next = min(next * 2, longest)
    let say = reason != lastReason
    lastReason = reason
    return (wait, say)
  }
}
