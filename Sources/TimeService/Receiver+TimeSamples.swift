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
    let events = timeEvents(bufferingNewest: limit)
    return AsyncStream { continuation in
      let task = Task {
        for await event in events {
          if case .sample(let sample) = event { continuation.yield(sample) }
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// The receiver's samples, and each stop and resume of feeding with its reason
  /// (``TimeNotice``), in the order they happened.
  public func timeEvents(bufferingNewest limit: Int = 16) -> AsyncStream<TimeEvent> {
    let (stream, continuation) = AsyncStream.makeStream(of: TimeEvent.self, bufferingPolicy: .bufferingNewest(limit))
    let sampler = Locked(TimeSampler())
    let listener = listen(wanting: .fixes) { event in
      guard case .fix(let fix) = event else { return }
      let outcome = sampler.withLock { $0.take(fix) }
      if let notice = outcome.notice { continuation.yield(.notice(notice)) }
      if let sample = outcome.sample { continuation.yield(.sample(sample)) }
    }
    continuation.onTermination = { [weak self] _ in self?.stopListening(listener) }
    return stream
  }
}
