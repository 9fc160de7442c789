import NMEA
import Plumbing
import Transports

extension Receiver {
  /// The receiver's time samples from now on (see ``TimeSampler`` for which fixes give one):
  /// at most one a second, for a clock discipline of your own, a check of the system clock,
  /// or, as `gpsbridge serve` does, chrony's and ntpd's reference clocks. Only live receivers
  /// (serial ports) give samples; a replay has no arrival times to pair with.
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
    let (stream, continuation) = AsyncStream.makeStream(of: TimeSample.self, bufferingPolicy: .bufferingNewest(limit))
    let sampler = Locked(TimeSampler())
    let listener = listen(wanting: .fixes) { event in
      guard case .fix(let fix) = event, let sample = sampler.withLock({ $0.sample(fix) }) else { return }
      continuation.yield(sample)
    }
    continuation.onTermination = { [weak self] _ in self?.stopListening(listener) }
    return stream
  }
}
