import Plumbing

/// Reads a non-blocking descriptor (a serial port, a socket) as bytes arrive, on a thread of
/// its own blocked in `poll(2)`.
///
/// The thread that reads the bytes is the one that decodes them and hands the epoch to the
/// listeners (a served client's socket is written from here too): no hop to another thread
/// between a receiver's last byte and a client's report. A Dispatch read source took 40 µs at
/// the median and 130 µs at p99 to run its handler on a serial queue; a thread waiting in
/// `poll` sees the bytes in 15 and 45.
///
/// The 4 KiB buffer is allocated once. `onBytes`, `onTick` (every 250 ms, for silence
/// detection and autobaud) and the work given to ``perform(_:)`` all run on that thread, one
/// at a time, so whatever state only they touch needs no lock. `onClosed` runs once, there
/// too, when the other side goes away (end of file or an error such as EIO) or ``stop()``
/// is called.
final class DescriptorReader: @unchecked Sendable {
  private let descriptor: FileDescriptor
  /// The thread's name, as `top -H` and `ps -L` show it.
  private let label: String
  private let onBytes: (UnsafeRawBufferPointer) -> Void
  private let onReadable: (() -> Drained)?
  private let onTick: () -> Void
  private let onClosed: (Errno?) -> Void
  private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
  private let wakePipe: WakePipe?
  /// What other threads hand the reader's thread.
  private let inbox = Locked(Inbox())
  /// Set on the reader's thread only.
  private var stopped = false

  private struct Inbox {
    var work: [@Sendable () -> Void] = []
    var stopRequested = false
    var started = false
    var ended = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  /// What `onReadable` found: nothing more for now, or the end.
  enum Drained {
    case wouldBlock
    case closed(Errno?)
  }

  static let tickInterval = Duration.milliseconds(250)

  /// A reader that reads the descriptor itself and hands each chunk to `onBytes`; or, given
  /// `onReadable`, one for a descriptor a library reads itself (libgps): `onReadable` runs
  /// when bytes are waiting and reads what it can without blocking.
  init(
    descriptor: FileDescriptor, label: String, onBytes: @escaping (UnsafeRawBufferPointer) -> Void = { _ in },
    onReadable: (() -> Drained)? = nil, onTick: @escaping () -> Void, onClosed: @escaping (Errno?) -> Void
  ) {
    self.descriptor = descriptor
    self.label = label
    self.onBytes = onBytes
    self.onReadable = onReadable
    self.onTick = onTick
    self.onClosed = onClosed
    // Without a pipe (out of descriptors) the thread still reads, and sees work and a stop
    // at the next tick instead of at once.
    self.wakePipe = try? WakePipe()
  }

  deinit {
    buffer.deallocate()
    wakePipe?.close()
  }

  /// Starts the reader's thread. The thread holds the reader until it ends.
  func start() {
    inbox.withLock { $0.started = true }
    detachThread { [self] in run() }
  }

  /// Runs `work` on the reader's thread, after any bytes already being handled.
  func perform(_ work: @escaping @Sendable () -> Void) {
    inbox.withLock { $0.work.append(work) }
    wakePipe?.wake()
  }

  /// Stops reading and returns once the reader's thread has let go of the descriptor, so it
  /// can be closed safely.
  func stop() async {
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      let running = inbox.withLock { inbox -> Bool in
        guard inbox.started, !inbox.ended else { return false }
        inbox.stopRequested = true
        inbox.waiters.append(waiter)
        return true
      }
      guard running else {
        // Never started (nothing else runs the callbacks, so they may run here), or ended
        // already (then this does nothing).
        finish(nil)
        waiter.resume()
        return
      }
      wakePipe?.wake()
    }
  }

  private func run() {
    // Named as Linux names threads (at most 15 characters); elsewhere it stays unnamed.
    if let comm = try? FileDescriptor.open("/proc/thread-self/comm", O_WRONLY) {
      try? comm.writeAll(label.utf8.prefix(15))
      try? comm.close()
    }
    var nextTick = ContinuousClock.now.advanced(by: Self.tickInterval)
    var entries = [
      pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0),
      pollfd(fd: wakePipe?.readEnd.rawValue ?? -1, events: Int16(POLLIN), revents: 0),
    ]
    while !stopped {
      let wait = ContinuousClock.now.duration(to: nextTick) / .milliseconds(1)
      entries[0].revents = 0
      entries[1].revents = 0
      if poll(&entries, 2, CInt(max(0, wait.rounded(.up)))) < 0 {
        let error = Errno.current
        if error != .interrupted {
          finish(error)
          break
        }
      }
      // Work and a stop always come with a wake (without a pipe, they wait for the tick):
      // reading bytes takes no lock.
      if entries[1].revents != 0 {
        wakePipe?.drain()
        runInbox()
      } else if wakePipe == nil {
        runInbox()
      }
      if !stopped, entries[0].revents != 0 { readAvailable(hangUp: entries[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0) }
      if !stopped, ContinuousClock.now >= nextTick {
        onTick()
        nextTick = ContinuousClock.now.advanced(by: Self.tickInterval)
      }
    }
    let waiters = inbox.withLock { inbox in
      inbox.ended = true
      defer { inbox.waiters.removeAll() }
      return inbox.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Runs the work handed over, and stops if asked to.
  private func runInbox() {
    let (work, stopRequested) = inbox.withLock { inbox in
      defer { inbox.work.removeAll() }
      return (inbox.work, inbox.stopRequested)
    }
    for item in work { item() }
    if stopRequested { finish(nil) }
  }

  private func finish(_ error: Errno?) {
    guard !stopped else { return }
    stopped = true
    onClosed(error)
  }

  /// Reads until the descriptor has nothing more. `hangUp`: `poll` said the other side is
  /// gone or the descriptor failed, so nothing to read means the end, not "later" (a
  /// descriptor that stays hung up would otherwise wake `poll` at once, forever).
  private func readAvailable(hangUp: Bool) {
    if let onReadable {
      if case .closed(let error) = onReadable() {
        finish(error)
      } else if hangUp {
        finish(nil)
      }
      return
    }
    while !stopped {
      let count: Int
      do {
        count = try descriptor.read(into: buffer)
      } catch .wouldBlock {
        if hangUp { finish(nil) }
        return
      } catch {
        // EIO, ENXIO, ENODEV (unplugged, a pty's other side closed), ECONNRESET.
        finish(error)
        return
      }
      guard count > 0 else {
        finish(nil)
        return
      }
      onBytes(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
  }
}
