import Framing
import NMEA
import Plumbing
import SourceStatus
import Transports

/// A virtual receiver that follows, epoch by epoch, the best of several real ones
/// (``BestReceiverChoice`` says how it chooses): served like any receiver, as `best`, and a
/// `LocationManager` can be built on its ``receiver``.
///
/// Each real receiver is followed while it is served (``following(_:name:while:)``), as an
/// observer: `best` never keeps a device open by itself. Its fixes are the chosen receiver's,
/// at that receiver's cadence, and so is what it says of its signals (INTEGRITY); a receiver
/// that falls silent is left once its epoch is overdue by half an interval or a second
/// (``BestReceiverChoice``), with the epochs the next one gave meanwhile (so none is missed),
/// and one that goes away (unplugged, stopped) at once. Switches and disagreements are told
/// to `said`, for people, and to `switched`, for a SWITCH report.
///
/// `said`, `switched` and the virtual receiver's listeners are called under the best
/// receiver's lock, so that its events keep their order: they must not call back into it.
public final class BestReceiver: Sendable {
  /// The name `best` is served under.
  public static let name = "best"

  /// A move of `best` from one receiver to another.
  public struct Switch: Sendable, Equatable, CustomStringConvertible {
    /// The receiver left, if one was followed before.
    public var from: String?
    /// The receiver followed from now.
    public var to: String
    /// Why, in words ("the receiver it followed went silent").
    public var reason: String
    /// The time of the epoch that made the switch, by the receivers' clock.
    public var time: UTCTimestamp?

    public var description: String {
      "best follows \(to)" + (from.map { " instead of \($0)" } ?? "") + ": \(reason)."
    }

    /// The SWITCH object gpsd clients that watch with `"switches":true` get, one line of JSON:
    /// `{"class":"SWITCH","device":"best","from":…,"to":…,"reason":…,"time":…}`.
    public var gpsdObject: String {
      var writer = JSONWriter(capacity: 160)
      writer.beginObject()
      writer.field("class", "SWITCH")
      writer.field("device", BestReceiver.name)
      if let from { writer.field("from", from) }
      writer.field("to", to)
      writer.field("reason", reason)
      if let time { writer.field("time", time.description) }
      writer.endObject()
      return writer.string
    }
  }

  /// The virtual receiver: its fixes are `best`'s.
  public let receiver: Receiver
  private let state: Locked<State>
  private let origin = ContinuousClock.now
  private let said: @Sendable (String) -> Void
  private let switched: @Sendable (Switch) -> Void

  private struct State {
    var choice: BestReceiverChoice
    /// Whether each receiver followed is a replay or the simulator: a fix of one is marked so.
    var simulated: [String: Bool] = [:]
    var integrity: [String: SignalIntegrity] = [:]
    /// The silence check armed (or made), and for when: each deadline is checked once.
    var timer: (deadline: Duration, task: Task<Void, Never>?)?
  }

  /// A best receiver with the documented rules; `said` hears switches and disagreements in
  /// words, `switched` each switch.
  public convenience init(said: @escaping @Sendable (String) -> Void = { _ in }, switched: @escaping @Sendable (Switch) -> Void = { _ in })
  {
    self.init(rules: .init(), said: said, switched: switched)
  }

  package init(
    rules: BestReceiverChoice.Rules, said: @escaping @Sendable (String) -> Void, switched: @escaping @Sendable (Switch) -> Void
  ) {
    receiver = Receiver(VirtualSource())
    state = Locked(State(choice: BestReceiverChoice(rules: rules)))
    self.said = said
    self.switched = switched
  }

  /// Follows `receiver` as one of the candidates, under `name`, while `body` runs; then `best`
  /// leaves it if it followed it. `best` only observes: `body` keeps the receiver's session
  /// going (`gpsbridge serve` serves it to gpsd's clients there; a program can
  /// `await receiver.run()`).
  public func following(_ receiver: Receiver, name: String, while body: () async -> Void) async {
    let simulated = receiver.source.isSimulated
    state.withLock { $0.simulated[name] = simulated }
    let listener = receiver.observe(wanting: [.fixes, .satellites]) { [self] event in
      switch event {
      case .fix(let fix): take(fix, of: name)
      case .integrity(let integrity): take(integrity, of: name)
      case .status(.paused), .status(.stopped), .status(.ended): leave(name)
      default: break
      }
    }
    await body()
    receiver.stopListening(listener)
    leave(name)
  }

  private var now: Duration { origin.duration(to: .now) }

  private func take(_ fix: Fix, of name: String) {
    state.withLock { state in
      let now = self.now
      let outcome = state.choice.take(fix, of: name, integrity: state.integrity[name], at: now)
      for receiver in outcome.disagreeing {
        said(
          state.choice.isLeftOut(receiver)
            ? "gpsbridge: \(receiver) disagrees with the other receivers by more than their stated errors allow; best does not follow it."
            : "gpsbridge: \(receiver) is farther from the other receiver than their stated errors allow; with two, nothing says which is right."
        )
      }
      publish(outcome, &state)
    }
  }

  /// What `name` says of its signals: kept for the choice, and `best`'s when it is followed.
  private func take(_ integrity: SignalIntegrity, of name: String) {
    state.withLock { state in
      state.integrity[name] = integrity
      if state.choice.chosen == name { receiver.publish(.integrity(integrity)) }
    }
  }

  /// `name` went away: forgotten (what it said of its signals too: a receiver plugged in again
  /// says it afresh), and left now if it was followed.
  private func leave(_ name: String) {
    state.withLock { state in
      state.integrity[name] = nil
      state.choice.remove(name)
      publish(state.choice.tick(at: now), &state)
    }
  }

  /// Checks for silence at `deadline`, unless another check has been armed since.
  private func tick(_ deadline: Duration) {
    state.withLock { state in
      guard state.timer?.deadline == deadline else { return }
      state.timer?.task = nil
      publish(state.choice.tick(at: now), &state)
    }
  }

  /// Under the lock, so that `best`'s events keep their order: the switch said, the fix
  /// published, the silence check armed again.
  private func publish(_ outcome: BestReceiverChoice.Outcome, _ state: inout State) {
    if let move = outcome.switched {
      let move = Switch(from: move.from, to: move.to, reason: move.reason.rawValue, time: move.time)
      said("gpsbridge: \(move)")
      switched(move)
      receiver.publish(.integrity(state.integrity[move.to] ?? SignalIntegrity()))
    }
    if let chosen = state.choice.chosen, !outcome.fixes.isEmpty {
      for var fix in outcome.fixes {
        if state.simulated[chosen] == true { fix.quality = .simulator }
        receiver.publish(.fix(fix))
      }
      receiver.publish(.flush)
    }
    arm(&state)
  }

  private func arm(_ state: inout State) {
    guard let deadline = state.choice.silenceDeadline else {
      state.timer?.task?.cancel()
      state.timer = nil
      return
    }
    guard deadline != state.timer?.deadline else { return }
    state.timer?.task?.cancel()
    let wake = origin.advanced(by: deadline + .milliseconds(1))
    state.timer = (
      deadline,
      Task { [weak self] in
        guard (try? await Task.sleep(until: wake, clock: .continuous)) != nil else { return }
        self?.tick(deadline)
      }
    )
  }

  deinit {
    state.withLock { $0.timer?.task?.cancel() }
  }
}

/// The source of `best`'s receiver: its fixes are published by ``BestReceiver`` as the
/// receivers it follows give them; a session only says it is there, until it is stopped.
private struct VirtualSource: ByteSource {
  var initialAuthorization: AuthorizationStatus { .authorizedAlways }
  func isPresent() async -> Bool { true }
  func checkAuthorization() async -> AuthorizationStatus { .authorizedAlways }

  func run(for receiver: Receiver) async {
    receiver.publish(.status(.authorization(.authorizedAlways)))
    // A sleep ends early when the session is stopped (cancelled).
    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
  }
}
