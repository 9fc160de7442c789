import SourceStatus

/// Autobaud and silence detection for one session on a serial port: a pure state machine.
/// It never reads a clock or touches the port; it is given the reader's counters and the time
/// at each tick of the reader's timer source, and answers what to do, which the reader does
/// on its queue, in order with the bytes. Tests drive it with times of their own.
///
/// - **Autobaud**: each rate of ``candidates`` is listened to for `probeWindow`; two sentences,
///   or a fix, prove it. After the whole list without one, ``SourceError/noNMEAAtAnyRate``
///   is said, and the search goes on.
/// - **Silence**: no byte for `silenceTimeout` is said once, until bytes come again.
/// - **Bytes but no sentence** for `silenceTimeout` at a settled rate, or ``garbageLimit``
///   bytes without a sentence or frame for a second (garbage flowing: bytes buffered at another
///   speed settled the rate wrongly, as gpsd re-hunts after a few hundred bad bytes): the
///   receiver changed rate, or the rate was settled wrongly. Autobaud starts over; a fixed rate
///   says so once.
struct LineWatch: Sendable {
  struct Timing: Hashable, Sendable {
    var probeWindow: Duration
    var silenceTimeout: Duration
  }

  /// What the reader does after a tick.
  enum Action: Hashable, Sendable {
    /// Keep the rate being tried: its bytes are the receiver's.
    case settle(rate: Int)
    /// Set the port to `rate` and decode afresh, its bytes noise until they prove NMEA.
    case probe(rate: Int)
    /// Tell the listeners (the cause may pass: the session goes on).
    case fail(SourceError)
  }

  /// The counters of the session so far: the reader's, as it saw the bytes.
  struct Counters: Hashable, Sendable {
    var sentences = 0
    var fixes = 0
    var lastByte: ContinuousClock.Instant?
    var lastSentence: ContinuousClock.Instant?
    /// Bytes read since the last sentence or frame.
    var bytesSinceFrame = 0
  }

  /// Bytes without a sentence or binary frame that say the rate is wrong: more than a UBX or
  /// RTCM frame gpsbridge reads holds, far fewer than a wrong rate's seconds of garbage.
  static let garbageLimit = 2048

  let path: String
  let automatic: Bool
  let timing: Timing
  /// The rates in the order they are tried; the one found last time first.
  private(set) var candidates: [Int]
  /// The rate being tried or kept: an index in ``candidates``.
  private(set) var index = 0
  private(set) var probing: Bool
  /// The rate proven in this session, or the one given; `nil` while searching.
  private(set) var knownRate: Int?
  private var probeStart: ContinuousClock.Instant
  private let started: ContinuousClock.Instant
  private var silenceReported = false
  private var garbageReported = false

  /// A watch from `now` for a port at `baudRate`, whose rate was `knownRate` last time.
  init(path: String, baudRate: BaudRate, knownRate: Int?, timing: Timing, now: ContinuousClock.Instant) {
    self.path = path
    self.timing = timing
    automatic = baudRate == .automatic
    var candidates = BaudRate.candidates
    if let knownRate, automatic { candidates = [knownRate] + candidates.filter { $0 != knownRate } }
    if !automatic, let knownRate { candidates = [knownRate] }
    self.candidates = candidates
    self.knownRate = knownRate
    probing = automatic
    probeStart = now
    started = now
  }

  /// The rate the port is set to now.
  var rate: Int { candidates[index] }

  /// What the session's counters at `now` call for.
  mutating func tick(_ counters: Counters, now: ContinuousClock.Instant) -> [Action] {
    if probing {
      if counters.sentences >= 2 || counters.fixes > 0 {
        probing = false
        knownRate = rate
        return [.settle(rate: rate)]
      }
      guard probeStart.duration(to: now) >= timing.probeWindow else { return [] }
      var actions: [Action] = []
      if index + 1 == candidates.count {
        actions.append(.fail(.noNMEAAtAnyRate(path: path, seconds: Int(started.duration(to: now).components.seconds))))
      }
      actions.append(probe((index + 1) % candidates.count, from: now))
      return actions
    }
    var actions: [Action] = []
    let quiet = counters.lastByte.map { $0.duration(to: now) } ?? probeStart.duration(to: now)
    if quiet >= timing.silenceTimeout {
      if !silenceReported {
        silenceReported = true
        actions.append(.fail(.silentDevice(path: path, seconds: Int(timing.silenceTimeout.components.seconds))))
      }
    } else {
      silenceReported = false
    }
    let sinceSentence = counters.lastSentence.map { $0.duration(to: now) } ?? started.duration(to: now)
    let garbageFlows = counters.bytesSinceFrame >= Self.garbageLimit && sinceSentence >= .seconds(1)
    if counters.lastByte != nil, quiet < timing.silenceTimeout, sinceSentence >= timing.silenceTimeout || garbageFlows {
      if automatic {
        probing = true
        knownRate = nil
        actions.append(probe(0, from: now))
      } else if !garbageReported {
        garbageReported = true
        actions.append(.fail(.noNMEAAtRate(path: path, seconds: Int(timing.silenceTimeout.components.seconds))))
      }
    }
    return actions
  }

  /// The port was set to `rate` on purpose (a receiver told to change its speed): that rate
  /// is kept from `now`, not searched for, and is the one a replug tries first.
  mutating func switched(to rate: Int, now: ContinuousClock.Instant) {
    if let found = candidates.firstIndex(of: rate) {
      index = found
    } else {
      candidates.append(rate)
      index = candidates.count - 1
    }
    probing = false
    knownRate = rate
    probeStart = now
    silenceReported = false
    garbageReported = false
  }

  /// Tries `candidates[next]` from `now` on.
  private mutating func probe(_ next: Int, from now: ContinuousClock.Instant) -> Action {
    index = next
    probeStart = now
    return .probe(rate: rate)
  }
}
