import Dispatch

extension FileDescriptor {
  /// Waits until bytes can be read, at most `timeout`; `false` when none came by then, or
  /// the task was cancelled. A Dispatch read source and timer do the waiting, so no thread is
  /// held meanwhile (a connection's first bytes can take seconds); it returns only once
  /// Dispatch has let go of the descriptor, so the caller may close it at once.
  package func readable(within timeout: Duration) async -> Bool {
    let wait = ReadableWait(self, timeout: timeout)
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in wait.start(continuation) }
    } onCancel: {
      wait.cancel()
    }
  }
}

/// One ``FileDescriptor/readable(within:)``: a read source and a timer on a queue of its own;
/// the first to fire (or a cancellation) decides, and the read source's cancellation answers.
private final class ReadableWait: @unchecked Sendable {
  private let queue = DispatchQueue(label: "gpsbridge.readable")
  private let source: any DispatchSourceRead
  private let timer: any DispatchSourceTimer
  private let timeout: Duration
  /// Touched on `queue` only.
  private var result: Bool?
  private var continuation: CheckedContinuation<Bool, Never>?

  init(_ descriptor: FileDescriptor, timeout: Duration) {
    self.timeout = timeout
    source = DispatchSource.makeReadSource(fileDescriptor: descriptor.rawValue, queue: queue)
    timer = DispatchSource.makeTimerSource(queue: queue)
  }

  func start(_ continuation: CheckedContinuation<Bool, Never>) {
    queue.async { [self] in
      self.continuation = continuation
      source.setEventHandler { [self] in decide(true) }
      source.setCancelHandler { [self] in self.continuation?.resume(returning: result ?? false) }
      timer.setEventHandler { [self] in decide(false) }
      timer.schedule(deadline: .now() + timeout.dispatchInterval)
      source.activate()
      timer.activate()
      if result != nil { decideNow() }
    }
  }

  /// Cancelled: false, unless already decided.
  func cancel() {
    queue.async { [self] in decide(false) }
  }

  private func decide(_ readable: Bool) {
    guard result == nil else { return }
    result = readable
    if continuation != nil { decideNow() }
  }

  private func decideNow() {
    timer.cancel()
    source.cancel()
  }
}
