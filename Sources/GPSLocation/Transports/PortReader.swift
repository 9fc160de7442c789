import Dispatch
import NMEA

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads an open serial port as bytes arrive, with a Dispatch read source (no polling loop,
/// no thread parked in `read`), and decodes them on its own queue into fixes.
///
/// Everything mutable is touched only on `queue`. The 4 KiB read buffer is allocated once.
/// Events go to an `AsyncStream` the source consumes: fixes, a tick with counters every
/// 250 ms (for autobaud and silence detection), and `closed` when the device goes away.
final class PortReader: @unchecked Sendable {
  enum Event: Sendable {
    case fix(Fix)
    case tick(Counters)
    case closed(Errno?)
  }

  struct Counters: Sendable {
    var bytes = 0
    var sentences = 0
    var rejected = 0
    var lastByte: ContinuousClock.Instant?
    var lastSentence: ContinuousClock.Instant?
  }

  private let queue = DispatchQueue(label: "gpsbridge.serial-reader")
  private let port: SerialPort
  private let defaultDate: UTCDate?
  private let continuation: AsyncStream<Event>.Continuation
  private var decoder: FixDecoder
  private var counters = Counters()
  private var readSource: (any DispatchSourceRead)?
  private var timer: (any DispatchSourceTimer)?
  private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
  private var stopped = false
  /// Receives every byte read while ``forwardBytes(_:)`` is on (for recording captures).
  private let rawBytes: (@Sendable ([UInt8]) -> Void)?
  private var forwarding = false
  private var waiters: [CheckedContinuation<Void, Never>] = []
  private var readSourceFinished = false

  init(port: SerialPort, defaultDate: UTCDate?, continuation: AsyncStream<Event>.Continuation, rawBytes: (@Sendable ([UInt8]) -> Void)? = nil) {
    self.port = port
    self.rawBytes = rawBytes
    self.defaultDate = defaultDate
    self.continuation = continuation
    self.decoder = FixDecoder(defaultDate: defaultDate)
  }

  deinit {
    buffer.deallocate()
  }

  func start() {
    queue.async { [self] in
      let source = DispatchSource.makeReadSource(fileDescriptor: port.descriptor.rawValue, queue: queue)
      source.setEventHandler { [unowned self] in readAvailable() }
      source.setCancelHandler { [unowned self] in
        readSourceFinished = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
      }
      readSource = source
      source.resume()
      let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
      timer.setEventHandler { [unowned self] in continuation.yield(.tick(counters)) }
      self.timer = timer
      timer.resume()
    }
  }

  /// Turns forwarding of raw bytes on or off (off while autobaud listens at wrong rates).
  func forwardBytes(_ on: Bool) {
    queue.async { [self] in forwarding = on }
  }

  /// Starts decoding afresh (after a baud change), forgetting what was counted.
  func reset() {
    queue.async { [self] in
      decoder = FixDecoder(defaultDate: defaultDate)
      counters = Counters()
    }
  }

  /// Stops reading and returns once the read source has let go of the descriptor, so the
  /// port can be closed safely.
  func stop() async {
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      queue.async { [self] in
        finish(nil)
        if readSourceFinished || readSource == nil { waiter.resume() } else { waiters.append(waiter) }
      }
    }
  }

  private func finish(_ error: Errno?) {
    guard !stopped else { return }
    stopped = true
    timer?.cancel()
    readSource?.cancel()
    continuation.yield(.closed(error))
    continuation.finish()
  }

  private func readAvailable() {
    while !stopped {
      let count: Int
      do {
        count = try port.descriptor.read(into: buffer)
      } catch .wouldBlock {
        return
      } catch {
        // EIO, ENXIO, ENODEV: unplugged, or a pty whose other side closed.
        finish(error)
        return
      }
      guard count > 0 else {
        finish(nil)
        return
      }
      let now = ContinuousClock.now
      counters.bytes += count
      counters.lastByte = now
      let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
      if forwarding, let rawBytes { rawBytes(Array(chunk)) }
      decoder.append(chunk)
      let before = decoder.framer.counters.sentences
      while let fix = decoder.next() { continuation.yield(.fix(fix)) }
      let framed = decoder.framer.counters
      if framed.sentences > before { counters.lastSentence = now }
      counters.sentences = framed.sentences
      counters.rejected = framed.badChecksum + framed.malformed + framed.overlong + framed.missingChecksum
    }
  }
}
