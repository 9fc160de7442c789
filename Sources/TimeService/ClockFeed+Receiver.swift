import NMEA
import Plumbing
import Transports

extension ClockFeed {
  /// The longest path chrony's socket may have, in bytes: a Unix socket's address holds no more.
  public static let longestSocketPath = ChronySocket.longestPath

  /// Starts feeding `receiver`'s time to the refclocks, and with `pulses` its pulse-per-second
  /// edges too (each labelled with the second a serial sample names, and refused otherwise):
  /// a Swift program's way to feed chrony or ntpd without the command line. The feed runs
  /// until the returned task is cancelled or the receiver's time events end; it does not run
  /// the receiver, whose session starts with its first runner (a server, a manager).
  ///
  /// `said` hears, in words for people, what happens: the receiver's time stopped or resumed
  /// (``TimeNotice``), the pulses lost and back, and after ``samplesBeforeReport`` samples the
  /// delay measured with the chrony.conf lines that correct it.
  /// - Parameters:
  ///   - pulses: where edges come from; the outputs must have been made with `pulses: true`.
  ///   - serialPort: the receiver's device, for a pulse on one of its modem lines.
  /// - Throws: a ``ClockFeedError`` when the pulses cannot be read at all now; nothing is fed.
  public func start(
    from receiver: Receiver, pulses: PulseSource? = nil, serialPort: String? = nil,
    said: @escaping @Sendable (String) -> Void = { _ in }
  ) throws(ClockFeedError) -> Task<Void, Never> {
    let labeller = Locked(PulseLabeller())
    var reader: PulseReader?
    if let pulses {
      do {
        reader = try PulseReader(
          pulses, serialPort: serialPort,
          edge: { [weak self] edge in
            if let sample = labeller.withLock({ $0.label(edge: edge) }) { self?.take(sample) }
          },
          said: said)
      } catch {
        throw ClockFeedError(message: error.description)
      }
    }
    let events = receiver.timeEvents()
    return Task { [reader] in
      for await event in events {
        switch event {
        case .notice(let notice):
          // Signals in doubt: no pulse is labelled with the time heard before the doubt.
          if case .interference = notice { labeller.withLock { $0.forgetTime() } }
          note(notice)
          said(notice.description + ".")
        case .sample(let sample):
          labeller.withLock { $0.take(sample) }
          guard let report = take(sample) else { continue }
          for line in advice(report) { said(line) }
        }
      }
      reader?.stop()
    }
  }
}
