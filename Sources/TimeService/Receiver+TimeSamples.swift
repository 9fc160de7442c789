import NMEA
import Plumbing
import Transports

/// What a receiver's time service hears: a sample to feed, or a change in whether it feeds.
public enum TimeEvent: Hashable, Sendable {
  case sample(TimeSample)
  case notice(TimeNotice)
}

extension Receiver {
  /// The receiver's time samples from now on (see ``TimeSampler`` for which fixes give one):
  /// at most one a second, for a clock discipline of your own, a check of the system clock,
  /// or, as `gpsbridge serve` does, chrony's and ntpd's reference clocks. Only live receivers
  /// (serial ports) give samples; a replay has no arrival times to pair with. A time that
  /// jumps, or a date before this release, gives none (``timeEvents(bufferingNewest:)`` says
  /// why as well).
  ///
  /// ```swift
  /// for await sample in receiver.timeSamples() {
  ///   print("the system clock is \(-sample.offset) s ahead of the receiver's NMEA time")
  /// }
  /// ```
  ///
  /// A reader that falls `bufferingNewest` samples behind loses the oldest. Ending the
  /// iteration stops sampling.
  public func timeSamples(bufferingNewest limit: Int = 16) -> AsyncStream<TimeSample> {
    let judge = Locked(TimeJudge())
    return stream(wanting: .fixes, bufferingNewest: limit) { event, yield in
      for case .sample(let sample) in judge.withLock({ $0.take(event) }) { yield(sample) }
    }
  }

  /// The receiver's samples, and each stop and resume of feeding with its reason
  /// (``TimeNotice``), in the order they happened.
  public func timeEvents(bufferingNewest limit: Int = 16) -> AsyncStream<TimeEvent> {
    let judge = Locked(TimeJudge())
    return stream(wanting: .fixes, bufferingNewest: limit) { event, yield in
      for event in judge.withLock({ $0.take(event) }) { yield(event) }
    }
  }
}

/// The two judges of a receiver's time together: its own timeline (``TimeSampler``) and what
/// it says of its signals (``InterferenceHold``). A sample is fed only when both let it, and
/// feeding is said to resume only when both do: one judge's "fed again" while the other
/// still holds is not said (the other's resume says it later).
struct TimeJudge {
  var sampler = TimeSampler()
  var hold = InterferenceHold()
  /// Whether the sampler's last word stopped the feeding (a jump, a drift, an old date…).
  private var samplerStopped = false

  mutating func take(_ event: ReceiverEvent) -> [TimeEvent] {
    switch event {
    case .integrity(let integrity):
      return hold.take(integrity).map { [.notice($0)] } ?? []
    case .fix(let fix):
      let outcome = sampler.take(fix)
      let held = hold.take(fix)
      var events: [TimeEvent] = []
      if let notice = outcome.notice {
        switch notice {
        case .resumed, .drifting:
          // "Fed again", "fed while…": true only while the signals are not in doubt.
          if case .resumed = notice { samplerStopped = false }
          if hold.feeds { events.append(.notice(notice)) }
        case .jumped, .beforeRelease, .drifted, .disagreesWithSystemClock, .stillDisagrees, .interference:
          samplerStopped = true
          events.append(.notice(notice))
        }
      }
      if let held {
        if case .resumed = held, samplerStopped {
          // The signals are clean, but the time itself is still held: its resume says so later.
        } else {
          events.append(.notice(held))
        }
      }
      if let sample = outcome.sample {
        samplerStopped = false
        if hold.feeds { events.append(.sample(sample)) }
      }
      return events
    default:
      return []
    }
  }
}
