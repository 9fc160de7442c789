import Framing
import Plumbing
import Transports

/// The way to a receiver while it is set up: commands out on its session, answers picked out of
/// what it sends, each request tried a few times, and the port's speed followed through a baud
/// change. Every kind of receiver talks through one.
final class SetupLink: Sendable {
  let receiver: Receiver
  let inbox: FrameInbox
  let timing: ReceiverSetup.Timing
  let sleep: @Sendable (Duration) async -> Void
  let now: @Sendable () -> ContinuousClock.Instant
  /// The speed this link last set the port to, while a baud change is under way.
  private let portSpeed = Locked<Int?>(nil)
  /// Why the receiver's session went away (unplugged), once it did.
  private let lost = Locked<String?>(nil)
  private let listener: Receiver.Listener

  init(
    _ receiver: Receiver, timing: ReceiverSetup.Timing, sleep: @escaping @Sendable (Duration) async -> Void,
    now: @escaping @Sendable () -> ContinuousClock.Instant
  ) {
    self.receiver = receiver
    self.timing = timing
    self.sleep = sleep
    self.now = now
    let inbox = FrameInbox(receiver, sleep: sleep)
    self.inbox = inbox
    let lost = self.lost
    listener = receiver.observe(wanting: []) { event in
      switch event {
      case .status(.paused(let error)), .status(.stopped(let error)):
        lost.withLock { $0 = $0 ?? error.description }
        // No answer can come now: whoever waits for one hears so at once.
        inbox.abandonWaiter()
      case .status(.resumed): lost.withLock { $0 = nil }
      default: break
      }
    }
  }

  deinit { receiver.stopListening(listener) }

  /// Throws ``SetupError/deviceLost(_:)`` once the receiver's session has gone away (and not
  /// come back): nothing it is asked can be answered then.
  func checkPresent() throws(SetupError) {
    if let reason = lost.withLock({ $0 }) { throw .deviceLost(reason) }
  }

  /// Like ``checkPresent()``, but asks the device itself (``Receiver/isLinkOpen()``): after an
  /// answer did not come, a receiver unplugged meanwhile is said to be gone, not silent, however
  /// late its hang-up would reach the session on a loaded machine.
  func confirmPresent() async throws(SetupError) {
    try checkPresent()
    guard await receiver.isLinkOpen() else {
      try checkPresent()
      throw .deviceLost("its port closed")
    }
  }

  /// The speed the port is at: the one this link set, or the one the session found.
  var lineSpeed: Int? { portSpeed.withLock { $0 } ?? receiver.lineSpeed }

  /// Sets the port to `speed` once what was sent has gone out; the speed it was at.
  /// - Throws: ``SetupError/deviceLost(_:)`` when the port cannot be set.
  @discardableResult
  func changeLineSpeed(to speed: Int) async throws(SetupError) -> Int {
    do {
      let before = try await receiver.changeLineSpeed(to: speed)
      portSpeed.withLock { $0 = speed }
      return before
    } catch {
      throw .deviceLost("its port could not be set to \(speed) baud")
    }
  }

  /// Sends `bytes`; false when the receiver's queue is full for now. A port not open yet (the
  /// session is starting, autobaud is at work) is waited for, an answer's time at most.
  func send(_ bytes: [UInt8]) async throws(SetupError) -> Bool {
    let deadline = now() + timing.answer
    while true {
      do {
        try receiver.send(bytes)
        return true
      } catch .full {
        await sleep(.milliseconds(20))
        return false
      } catch {
        try checkPresent()
        guard now() < deadline, !Task.isCancelled else { throw .deviceLost("its port is not open") }
        await sleep(.milliseconds(20))
      }
    }
  }

  /// Sends `request` and waits for the UBX frame `isAnswer` picks, trying ``ReceiverSetup/Timing/attempts`` times.
  func exchange(_ request: UBXFrame, what: String, isAnswer: @escaping @Sendable (UBXFrame) -> Bool) async throws(SetupError) -> UBXFrame {
    try await exchange(request.bytes, what: what) { $0.ubx.map(isAnswer) ?? false }.ubx!
  }

  /// Sends `request` and waits for the sentence `isAnswer` picks, trying ``ReceiverSetup/Timing/attempts`` times.
  func exchange(
    _ request: ProprietarySentence, what: String? = nil, isAnswer: @escaping @Sendable (ProprietarySentence) -> Bool
  ) async throws(SetupError) -> ProprietarySentence {
    try await exchange(request.bytes, what: what ?? request.description) { $0.sentence.map(isAnswer) ?? false }.sentence!
  }

  private func exchange(_ bytes: [UInt8], what: String, isAnswer: @escaping @Sendable (Answer) -> Bool) async throws(SetupError) -> Answer {
    for _ in 0..<timing.attempts {
      guard !Task.isCancelled else { throw .interrupted }
      try checkPresent()
      inbox.clear()
      guard try await send(bytes) else { continue }
      if let answer = await inbox.next(matchingAnswer: isAnswer, within: timing.answer) { return answer }
      guard !Task.isCancelled else { throw .interrupted }
      try await confirmPresent()
    }
    throw Task.isCancelled ? .interrupted : .noAnswer(request: what)
  }

  /// Sets a u-blox setting by writing its block back, acknowledged (`ACK-ACK`).
  func setAcknowledged(_ frame: UBXFrame, what: String) async throws(SetupError) {
    let answer = try await exchange(frame, what: what) {
      $0.acknowledgement.map { $0.messageClass == frame.messageClass && $0.id == frame.id } == true
    }
    guard answer.acknowledgement?.accepted == true else { throw .refused(request: what) }
  }

  /// Polls a u-blox block: the answer `parse` takes. A refusal (`ACK-NAK`) means the model has
  /// no such setting.
  func poll<Block>(_ frame: UBXFrame, what: String, _ parse: @escaping @Sendable (UBXFrame) -> Block?) async throws(SetupError) -> Block {
    let answer = try await exchange(frame, what: what) { answer in
      parse(answer) != nil
        || answer.acknowledgement.map { !$0.accepted && $0.messageClass == frame.messageClass && $0.id == frame.id } == true
    }
    guard let block = parse(answer) else {
      throw .cannotTake("The receiver has no \(what) (it refused the poll): this model cannot take that change.")
    }
    // The poll's own ACK-ACK follows its answer: taken now, it cannot pass for the
    // acknowledgement of a change that follows.
    _ = await inbox.next(
      matching: { $0.acknowledgement.map { $0.messageClass == frame.messageClass && $0.id == frame.id } == true },
      within: timing.answer)
    return block
  }

  /// Whether the receiver answers `query` (the answer `isAnswer` picks) within `time`: asked
  /// again each half second, as after a baud change the first may be lost.
  func answers(_ query: [UInt8], within time: Duration, isAnswer: @escaping @Sendable (Answer) -> Bool) async -> Bool {
    let deadline = now() + time
    while now() < deadline, !Task.isCancelled {
      inbox.clear()
      guard (try? await send(query)) == true else {
        await sleep(.milliseconds(100))
        continue
      }
      if await inbox.next(matchingAnswer: isAnswer, within: .milliseconds(500)) != nil { return true }
    }
    return false
  }

  /// Whether valid NMEA (or UBX navigation) arrives within `time`: a receiver that answers no
  /// question still shows that it speaks at the port's speed.
  func hearsOutput(within time: Duration) async -> Bool {
    let heard = Locked(false)
    let listener = receiver.observe(wanting: [.sentences, .frames]) { event in
      switch event {
      case .sentence, .frame(.ubx): heard.withLock { $0 = true }
      default: break
      }
    }
    defer { receiver.stopListening(listener) }
    let deadline = now() + time
    while now() < deadline, !Task.isCancelled, !heard.withLock({ $0 }) { await sleep(.milliseconds(50)) }
    return heard.withLock { $0 }
  }
}
