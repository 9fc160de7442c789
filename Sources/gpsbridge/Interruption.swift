#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The pipe a signal handler writes one byte to, for the thread that waits on it: set once,
/// before the handlers are installed, and only read after.
nonisolated(unsafe) private var signalPipeWriteEnd: CInt = -1
/// The end the signals' thread reads; set with the other.
nonisolated(unsafe) private var signalPipeReadEnd: CInt = -1

/// Ctrl-C and SIGTERM, never lost. Handlers are installed at the very start, before any work
/// (a process-wide disposition, whichever thread the kernel picks); each writes a byte to a
/// pipe, and one thread of ours cancels the running work when it reads one, or, if no work
/// runs yet, remembers it so that the work is cancelled the moment it starts. (A Dispatch
/// signal source set up once the work had begun left a moment in which a signal was
/// ignored: systemd's SIGTERM just after READY=1 was lost 3 times in 6.)
enum Interruption {
  private struct State {
    var interrupted = false
    var task: Task<Int32, Never>?
  }
  private static let state = Shared(State())

  /// Installs the handlers and starts the thread that hears them.
  static func install() {
    var ends: [CInt] = [-1, -1]
    guard pipe(&ends) == 0 else { return }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
    signalPipeWriteEnd = ends[1]
    signalPipeReadEnd = ends[0]
    // A thread of its own, blocked in read(2): never one of the cooperative pool's.
    var thread = pthread_t()
    guard
      pthread_create(
        &thread, nil,
        { _ in
          Interruption.hearSignals()
          return nil
        }, nil) == 0
    else { return }
    pthread_detach(thread)
    for number in [SIGINT, SIGTERM] {
      signal(number) { _ in
        var byte: UInt8 = 1
        _ = write(signalPipeWriteEnd, &byte, 1)  // async-signal-safe: the bare call
      }
    }
  }

  /// Reads the pipe until it fails, cancelling the work at each byte.
  private static func hearSignals() {
    var byte: UInt8 = 0
    while true {
      let count = read(signalPipeReadEnd, &byte, 1)
      if count < 0, errno == EINTR { continue }
      guard count == 1 else { return }
      let task = state.withLock { state in
        state.interrupted = true
        return state.task
      }
      task?.cancel()
    }
  }

  /// Lets the signals end the program as they do by default again, for commands that have
  /// nothing to stop cleanly; one that came already ends it now.
  static func restoreDefault() {
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
    if state.withLock({ $0.interrupted }) { raise(SIGTERM) }
  }

  /// Cancels `task` at the first SIGINT or SIGTERM, also one that came before this call.
  static func cancelOnSignal(_ task: Task<Int32, Never>) {
    let interrupted = state.withLock { state in
      state.task = task
      return state.interrupted
    }
    if interrupted { task.cancel() }
  }
}
