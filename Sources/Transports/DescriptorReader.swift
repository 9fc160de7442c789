import Dispatch
import Plumbing

/// Reads a non-blocking descriptor (a serial port, a socket) as bytes arrive: a
/// `DispatchSourceRead` on the receiver's serial queue (one for all its sessions), the design card's
/// "Dispatch-source reader". It also writes what is sent to the device (``send(_:)``), on
/// the same queue, so reading and writing never race for the descriptor.
///
/// The queue that reads the bytes is the one that decodes them and hands the epoch to the
/// listeners (a served client's socket is written from there too): no further hop between a
/// receiver's last byte and a client's report. Dispatch costs a few tens of microseconds more
/// than a thread of its own blocked waiting for the descriptor (its event thread wakes the queue's), far
/// below what a user can notice: USB polling alone takes 1–16 ms, and serial jitter is about
/// 1 ms. In exchange no thread is parked per receiver, and everything that touches the
/// descriptor is work on one queue.
///
/// The 4 KiB buffer is allocated once. `onBytes`, `onTick` (every 250 ms, a timer source on
/// the same queue, for silence detection and autobaud) and the work given to ``perform(_:)``
/// all run on that queue, one at a time, so whatever state only they touch needs no lock.
/// `onClosed` runs once, there too, when the other side goes away (end of file or an error
/// such as EIO) or ``stop()`` is called.
final class DescriptorReader: @unchecked Sendable {
  private let descriptor: FileDescriptor
  private let onBytes: (UnsafeRawBufferPointer) -> Void
  private let onReadable: (() -> Drained)?
  private let onTick: () -> Void
  private let onClosed: (Errno?) -> Void
  private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
  /// The receiver's queue: the reader's sources, its callbacks and ``perform(_:)``'s work run
  /// here.
  private let queue: DispatchQueue
  /// Touched on `queue` only.
  private var readSource: (any DispatchSourceRead)?
  /// Stops the tick; set on `queue` once started.
  private var stopTicking: Scheduler.Cancel?
  private let scheduler: Scheduler
  private var stopped = false
  /// Bytes sent and not yet written, from `pendingStart` on; touched on `queue` only.
  private var pending: [UInt8] = []
  private var pendingStart = 0
  /// Made the first time the descriptor takes no more (a full tty); resumed while bytes wait.
  private var writeSource: (any DispatchSourceWrite)?
  private var writeSourceResumed = false
  /// Work waiting for what is pending to be written (``afterWrites(_:)``); on `queue` only.
  private var flushWaiters: [@Sendable (Bool) -> Void] = []
  /// Sources not yet cancelled and done; Dispatch lets go of the descriptor at 0.
  private var liveSources = 0
  /// Wakes in a row that found nothing to read (see ``emptyWakeLimit``).
  private var emptyWakes = 0
  /// Whether the reader started and ended, and who waits for the end.
  private let life = Locked(Life())

  private struct Life {
    var started = false
    var ended = false
    var waiters: [CheckedContinuation<Void, Never>] = []
    /// Bytes accepted by ``send(_:)`` and not yet written or dropped.
    var queued = 0
  }

  /// At most this many bytes wait to be written.
  static let sendLimit = 65_536

  /// What `onReadable` found: nothing more for now, or the end.
  enum Drained {
    case wouldBlock
    case closed(Errno?)
  }

  static let tickInterval = Duration.milliseconds(250)

  /// A reader that reads the descriptor itself and hands each chunk to `onBytes`; or, given
  /// `onReadable`, one for a descriptor a library reads itself (libgps): `onReadable` runs
  /// when bytes are waiting and reads what it can without blocking. `queue` is the
  /// receiver's own, for its whole life: one session after another reads on it, each once the
  /// one before has stopped. `scheduler` runs the tick.
  init(
    descriptor: FileDescriptor, queue: DispatchQueue, scheduler: Scheduler = .live,
    onBytes: @escaping (UnsafeRawBufferPointer) -> Void = { _ in },
    onReadable: (() -> Drained)? = nil, onTick: @escaping () -> Void, onClosed: @escaping (Errno?) -> Void
  ) {
    self.scheduler = scheduler
    self.descriptor = descriptor
    self.onBytes = onBytes
    self.onReadable = onReadable
    self.onTick = onTick
    self.onClosed = onClosed
    self.queue = queue
  }

  deinit {
    buffer.deallocate()
  }

  /// Starts reading. The sources hold the reader until it ends.
  func start() {
    life.withLock { $0.started = true }
    queue.async { [self] in
      guard !stopped else { return }
      let source = DispatchSource.makeReadSource(fileDescriptor: descriptor.rawValue, queue: queue)
      source.setEventHandler { [self] in readAvailable() }
      // Once cancelled, Dispatch has let go of the descriptor: it may be closed.
      source.setCancelHandler { [self] in sourceEnded() }
      liveSources += 1
      readSource = source
      source.activate()
      stopTicking = scheduler.repeating(Self.tickInterval, queue) { [self] in if !stopped { onTick() } }
    }
  }

  /// Queues `bytes` to be written to the descriptor, on the reader's queue, without ever
  /// blocking it: what the descriptor does not take now waits for a write source to say it
  /// has room. Fails when the reader is not running, or when more than ``sendLimit`` bytes
  /// would wait.
  func send(_ bytes: [UInt8]) -> Result<Void, Receiver.SendError> {
    let accepted = life.withLock { life -> Result<Void, Receiver.SendError> in
      guard life.started, !life.ended else { return .failure(.notConnected) }
      guard life.queued + bytes.count <= Self.sendLimit else { return .failure(.full) }
      life.queued += bytes.count
      return .success(())
    }
    guard case .success = accepted else { return accepted }
    queue.async { [self] in
      guard !stopped else { return dropPending(adding: bytes.count) }
      pending.append(contentsOf: bytes)
      flush()
    }
    return accepted
  }

  /// Writes what waits, as far as the descriptor takes it now (on `queue`).
  private func flush() {
    while pendingStart < pending.count, !stopped {
      let start = pendingStart
      let attempt = pending.withUnsafeBytes { raw in
        Result { () throws(Errno) in try descriptor.writeWithoutSignal(UnsafeRawBufferPointer(rebasing: raw[start...])) }
      }
      let written: Int
      do {
        written = try attempt.get()
      } catch .wouldBlock {
        waitForRoom()
        return
      } catch {
        // The device went away: the read side sees it and ends the session.
        return dropPending(adding: 0)
      }
      pendingStart += written
      life.withLock { $0.queued -= written }
    }
    pending.removeAll(keepingCapacity: pending.capacity <= 4096)
    pendingStart = 0
    if writeSourceResumed {
      writeSource?.suspend()
      writeSourceResumed = false
    }
    answerFlushWaiters(!stopped)
  }

  /// Resumes the write source (made on first need), which flushes when there is room.
  private func waitForRoom() {
    guard !writeSourceResumed else { return }
    if writeSource == nil {
      let source = DispatchSource.makeWriteSource(fileDescriptor: descriptor.rawValue, queue: queue)
      source.setEventHandler { [self] in flush() }
      source.setCancelHandler { [self] in sourceEnded() }
      liveSources += 1
      writeSource = source
      source.activate()
    } else {
      writeSource?.resume()
    }
    writeSourceResumed = true
  }

  /// Forgets the bytes waiting (and `extra` accepted but never queued): they cannot be written.
  private func dropPending(adding extra: Int) {
    let dropped = pending.count - pendingStart + extra
    pending.removeAll()
    pendingStart = 0
    life.withLock { $0.queued -= dropped }
    answerFlushWaiters(false)
  }

  /// Runs `work` on the reader's queue once every byte queued so far has been handed to the
  /// descriptor (written, not necessarily sent on the line yet): `false` when they could not
  /// be (the reader stopped, the device went away).
  func afterWrites(_ work: @escaping @Sendable (Bool) -> Void) {
    queue.async { [self] in
      if stopped { return work(false) }
      guard pendingStart < pending.count else { return work(true) }
      flushWaiters.append(work)
    }
  }

  /// Tells the work waiting for the pending bytes whether they were written.
  private func answerFlushWaiters(_ written: Bool) {
    let waiters = flushWaiters
    flushWaiters = []
    for waiter in waiters { waiter(written) }
  }

  /// Reads what waits now, on the reader's queue, and tells `done` whether the descriptor is
  /// still open: a hung-up device (a pty whose other side closed, an unplugged adapter) gives
  /// its error to this read at once, whenever Dispatch would have woken the read source.
  func probe(_ done: @escaping @Sendable (Bool) -> Void) {
    queue.async { [self] in
      if !stopped { readAvailable() }
      done(!stopped)
    }
  }

  /// Runs `work` on the reader's queue, after any bytes already being handled.
  func perform(_ work: @escaping @Sendable () -> Void) {
    queue.async(execute: work)
  }

  /// Ends reading from one of the reader's own callbacks (a connection found stale): `onClosed`
  /// runs at once, without an error. ``stop()`` still waits for Dispatch to let go.
  func closeFromQueue() {
    dispatchPrecondition(condition: .onQueue(queue))
    finish(nil)
  }

  /// Stops reading and returns once Dispatch has let go of the descriptor, so it can be
  /// closed safely.
  func stop() async {
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      let running = life.withLock { life -> Bool in
        guard life.started, !life.ended else { return false }
        life.waiters.append(waiter)
        return true
      }
      guard running else {
        // Never started (nothing else runs the callbacks, so they may run here), or ended
        // already (then this does nothing).
        if !life.withLock({ $0.started }) { finish(nil) }
        waiter.resume()
        return
      }
      queue.async { [self] in finish(nil) }
    }
  }

  /// A source is cancelled and done; after the last, wake whoever waits in ``stop()``.
  private func sourceEnded() {
    liveSources -= 1
    if liveSources == 0 { ended() }
  }

  /// Dispatch has let go of the descriptor: wake whoever waits in ``stop()``.
  private func ended() {
    readSource = nil
    stopTicking = nil
    writeSource = nil
    let waiters = life.withLock { life in
      life.ended = true
      defer { life.waiters.removeAll() }
      return life.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  private func finish(_ error: Errno?) {
    guard !stopped else { return }
    stopped = true
    stopTicking?.cancel()
    dropPending(adding: 0)
    onClosed(error)
    if let writeSource {
      // A suspended source never completes its cancellation.
      if !writeSourceResumed { writeSource.resume() }
      writeSourceResumed = true
      writeSource.cancel()
    }
    if let readSource {
      readSource.cancel()
    } else {
      // Stopped before the sources were made (on the queue, after `start`): nothing holds
      // the descriptor.
      ended()
    }
  }

  /// Reads until the descriptor has nothing more. The end shows as end of file or an error
  /// (a pty whose other side closed gives EIO, a socket gives 0 or ECONNRESET). A descriptor
  /// that stays signalled with nothing to give would wake the source at once, forever: after
  /// ``emptyWakeLimit`` wakes in a row that read nothing at all, that is the end too.
  private func readAvailable() {
    if let onReadable {
      // libgps reads the socket itself and reports its end as an error.
      if case .closed(let error) = onReadable() { finish(error) }
      return
    }
    var readAny = false
    while !stopped {
      let count: Int
      do {
        count = try descriptor.read(into: buffer)
      } catch .wouldBlock {
        emptyWakes = readAny ? 0 : emptyWakes + 1
        if emptyWakes >= Self.emptyWakeLimit { finish(nil) }
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
      readAny = true
      onBytes(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
  }

  /// Wakes in a row with nothing to read that mean the descriptor is hung up. (Dispatch wakes
  /// a read source only when the descriptor is readable, so even one is rare.)
  static let emptyWakeLimit = 64
}
