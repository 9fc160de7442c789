import Framing
import Plumbing
import Transports

/// The UBX frames a receiver sends, kept for whoever waits for an answer: a listener of the
/// receiver puts them here on its queue, and ``next(matching:within:)`` takes the first that
/// matches, or gives up after a while. Frames nobody waits for are kept, the newest 64.
final class FrameInbox: Sendable {
  private struct Waiter {
    let id: Int
    let matches: @Sendable (UBXFrame) -> Bool
    let continuation: CheckedContinuation<UBXFrame?, Never>
  }
  private struct State {
    var frames: [UBXFrame] = []
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
    listener = receiver.listen(wanting: .frames) { event in
      guard case .frame(.ubx(let frame)) = event else { return }
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

  /// Forgets the frames kept: a request's answer is one that comes after it.
  func clear() { state.withLock { $0.frames.removeAll() } }

  /// The first frame that `matches`, waiting up to `timeout`; `nil` if none came.
  func next(matching matches: @escaping @Sendable (UBXFrame) -> Bool, within timeout: Duration) async -> UBXFrame? {
    await withCheckedContinuation { (continuation: CheckedContinuation<UBXFrame?, Never>) in
      let id = state.withLock { state -> Int? in
        if let index = state.frames.firstIndex(where: matches) {
          continuation.resume(returning: state.frames.remove(at: index))
          return nil
        }
        defer { state.nextID += 1 }
        state.waiter = Waiter(id: state.nextID, matches: matches, continuation: continuation)
        return state.nextID
      }
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
