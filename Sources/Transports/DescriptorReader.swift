import Dispatch
import Plumbing

/// Reads a non-blocking descriptor (a serial port, a socket) as bytes arrive, with a
/// Dispatch read source: no polling loop, no thread parked in `read`.
///
/// The 4 KiB buffer is allocated once. `onBytes` runs on the reader's own serial queue, as
/// does `onTick` every 250 ms (for silence detection and autobaud), so whatever state they
/// touch needs no lock if only they touch it. `onClosed` runs once, when the other side
/// goes away (end of file or an error such as EIO) or ``stop()`` is called.
final class DescriptorReader: @unchecked Sendable {
  let queue: DispatchQueue
  private let descriptor: FileDescriptor
  private let onBytes: (UnsafeRawBufferPointer) -> Void
  private let onReadable: (() -> Drained)?
  private let onTick: () -> Void
  private let onClosed: (Errno?) -> Void
  private var readSource: (any DispatchSourceRead)?
  private var timer: (any DispatchSourceTimer)?
  private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
  private var stopped = false
  /// Sources whose cancel handler has not run yet; ``stop()`` waits for none to be left.
  private var liveSources = 0
  private var waiters: [CheckedContinuation<Void, Never>] = []

  /// What `onReadable` found: nothing more for now, or the end.
  enum Drained {
    case wouldBlock
    case closed(Errno?)
  }

  /// A reader that reads the descriptor itself and hands each chunk to `onBytes`; or, given
  /// `onReadable`, one for a descriptor a library reads itself (libgps): `onReadable` runs
  /// when bytes are waiting and reads what it can without blocking.
  init(
    descriptor: FileDescriptor, label: String, onBytes: @escaping (UnsafeRawBufferPointer) -> Void = { _ in },
    onReadable: (() -> Drained)? = nil, onTick: @escaping () -> Void, onClosed: @escaping (Errno?) -> Void
  ) {
    self.descriptor = descriptor
    self.queue = DispatchQueue(label: label)
    self.onBytes = onBytes
    self.onReadable = onReadable
    self.onTick = onTick
    self.onClosed = onClosed
  }

  deinit {
    buffer.deallocate()
  }

  func start() {
    queue.async { [self] in
      // Handlers hold the reader weakly: one already queued when the reader is released
      // finds nothing to do instead of touching freed memory.
      let source = DispatchSource.makeReadSource(fileDescriptor: descriptor.rawValue, queue: queue)
      source.setEventHandler { [weak self] in self?.readAvailable() }
      source.setCancelHandler { [weak self] in self?.sourceCancelled() }
      readSource = source
      let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
      timer.setEventHandler { [weak self] in
        guard let self, !stopped else { return }
        onTick()
      }
      timer.setCancelHandler { [weak self] in self?.sourceCancelled() }
      self.timer = timer
      liveSources = 2
      source.resume()
      timer.resume()
    }
  }

  /// Runs `work` on the reader's queue, after any bytes already being handled.
  func perform(_ work: @escaping @Sendable () -> Void) {
    queue.async(execute: work)
  }

  /// Stops reading and returns once the read source has let go of the descriptor, so it
  /// can be closed safely.
  func stop() async {
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      queue.async { [self] in
        finish(nil)
        if liveSources == 0 { waiter.resume() } else { waiters.append(waiter) }
      }
    }
  }

  private func sourceCancelled() {
    liveSources -= 1
    guard liveSources == 0 else { return }
    for waiter in waiters { waiter.resume() }
    waiters.removeAll()
  }

  private func finish(_ error: Errno?) {
    guard !stopped else { return }
    stopped = true
    timer?.cancel()
    readSource?.cancel()
    onClosed(error)
  }

  private func readAvailable() {
    if let onReadable, !stopped {
      if case .closed(let error) = onReadable() { finish(error) }
      return
    }
    while !stopped {
      let count: Int
      do {
        count = try descriptor.read(into: buffer)
      } catch .wouldBlock {
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
