import Framing
import Plumbing
import Transports

/// What a receiver says that may answer a command: a UBX frame, or a proprietary sentence
/// (`$PMTK001`…).
enum Answer: Sendable {
  case ubx(UBXFrame)
  case sentence(ProprietarySentence)

  var ubx: UBXFrame? { if case .ubx(let frame) = self { frame } else { nil } }
  var sentence: ProprietarySentence? { if case .sentence(let sentence) = self { sentence } else { nil } }
}

/// The UBX frames and proprietary sentences a receiver sends, kept for whoever waits for an
/// answer: a listener of the receiver puts them here on its queue, and
/// ``next(matching:within:)`` takes the first that matches, or gives up after a while. Answers
/// nobody waits for are kept, the newest 64.
final class FrameInbox: Sendable {
  private struct Waiter {
    let id: Int
    let matches: @Sendable (Answer) -> Bool
    let continuation: CheckedContinuation<Answer?, Never>
  }
  private struct State {
    var frames: [Answer] = []
    var waiter: Waiter?
    var nextID = 0
  }
  private let state = Locked(State())
  private let receiver: Receiver
  private let listener: Receiver.Listener
  private let sleep: @Sendable (Duration) async -> Void

  init(_ receiver: Receiver, sleep: @escaping @Sendable (Duration) async -> Void) {
    self.receiver = receiver
    self.sleep = sleep
    let state = self.state
    listener = receiver.observe(wanting: [.frames, .sentences]) { event in
      let frame: Answer
      switch event {
      case .frame(.ubx(let ubx)): frame = .ubx(ubx)
      case .sentence(let bytes):
        guard bytes.count > 2, bytes[1] == UInt8(ascii: "P"), let sentence = ProprietarySentence(line: bytes) else { return }
        frame = .sentence(sentence)
      default: return
      }
      let waiter = state.withLock { state -> Waiter? in
        if let waiter = state.waiter, waiter.matches(frame) {
          state.waiter = nil
          return waiter
        }
        state.frames.append(frame)
        if state.frames.count > 64 { state.frames.removeFirst() }
        return nil
      }
      waiter?.continuation.resume(returning: frame)
    }
  }

  deinit { receiver.stopListening(listener) }

  /// Ends the wait of whoever waits for an answer, with none (the receiver went away).
  func abandonWaiter() {
    state.withLock { state -> Waiter? in
      defer { state.waiter = nil }
      return state.waiter
    }?.continuation.resume(returning: nil)
  }

  /// Forgets the frames kept: a request's answer is one that comes after it.
  func clear() { state.withLock { $0.frames.removeAll() } }

  /// The first UBX frame that `matches`, waiting up to `timeout`; `nil` if none came.
  func next(matching matches: @escaping @Sendable (UBXFrame) -> Bool, within timeout: Duration) async -> UBXFrame? {
    await next(matchingAnswer: { $0.ubx.map(matches) ?? false }, within: timeout)?.ubx
  }

  /// The first proprietary sentence that `matches`, waiting up to `timeout`; `nil` if none came.
  func next(
    matchingSentence matches: @escaping @Sendable (ProprietarySentence) -> Bool, within timeout: Duration
  ) async -> ProprietarySentence? {
    await next(matchingAnswer: { $0.sentence.map(matches) ?? false }, within: timeout)?.sentence
  }

  /// The first answer that `matches`, waiting up to `timeout`; `nil` if none came.
  func next(matchingAnswer matches: @escaping @Sendable (Answer) -> Bool, within timeout: Duration) async -> Answer? {
    await withCheckedContinuation { (continuation: CheckedContinuation<Answer?, Never>) in
      // One waiter at a time: one that was waiting still is given up on, never left behind.
      let (id, replaced) = state.withLock { state -> (Int?, Waiter?) in
        if let index = state.frames.firstIndex(where: matches) {
          continuation.resume(returning: state.frames.remove(at: index))
          return (nil, nil)
        }
        defer { state.nextID += 1 }
        let replaced = state.waiter
        state.waiter = Waiter(id: state.nextID, matches: matches, continuation: continuation)
        return (state.nextID, replaced)
      }
      replaced?.continuation.resume(returning: nil)
      guard let id else { return }
      Task { [state, sleep] in
        await sleep(timeout)
        let waiter = state.withLock { state -> Waiter? in
          guard let waiter = state.waiter, waiter.id == id else { return nil }
          state.waiter = nil
          return waiter
        }
        waiter?.continuation.resume(returning: nil)
      }
    }
  }
}
