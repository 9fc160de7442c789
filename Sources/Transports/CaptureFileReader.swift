import Dispatch
import Plumbing

/// A capture file (or standard input) read in pieces, each by a `DispatchSourceRead` on a
/// serial queue of the reader's own, and only when the replay asks for it: a capture of hours
/// is never read faster than it plays, and a pipe that gives nothing for a while holds no
/// thread (the replay awaits; nothing blocks in `read(2)`).
///
/// Each piece has a source of its own, cancelled once it has read: Dispatch's sources on Linux
/// are edge-triggered, so one suspended while a piece waited would never hear a pipe's end
/// that came meanwhile; a new source is told at once what is ready. One `read` a wake: a
/// readable pipe gives what it has without blocking, and a regular file always does, so the
/// descriptor needs no `O_NONBLOCK` (which, on standard input, would change the terminal's or
/// the shell's pipe for other programs too).
final class CaptureFileReader: @unchecked Sendable {
  private let descriptor: FileDescriptor
  private let closesDescriptor: Bool
  private let queue = DispatchQueue(label: "gpsbridge.capture", qos: .userInitiated)
  private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
  /// Touched on `queue` only, from here down.
  private var source: (any DispatchSourceRead)?
  private var waiter: CheckedContinuation<Result<[UInt8]?, Errno>, Never>?
  private var finished = false
  /// Sources made and not yet done cancelling: the descriptor is closed when none is left.
  private var liveSources = 0

  /// Whether the descriptor is a regular file: always readable, so read without a source, and
  /// one piece ahead (read on the reader's queue while the replay decodes the one before).
  private let isRegularFile: Bool
  /// The piece read ahead, on `queue` only.
  private var ahead: Result<[UInt8]?, Errno>?

  /// Reads `descriptor`, closing it at the end when `closesDescriptor` (not standard input).
  init(_ descriptor: FileDescriptor, closesDescriptor: Bool) {
    self.descriptor = descriptor
    self.closesDescriptor = closesDescriptor
    var status = stat()
    isRegularFile = fstat(descriptor.rawValue, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
  }

  deinit {
    buffer.deallocate()
  }

  /// The next piece (at most 64 KiB), `nil` at the end or when the task is cancelled.
  /// - Throws: the error reading gave; the reader is finished then.
  func next() async throws(Errno) -> [UInt8]? {
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Result<[UInt8]?, Errno>, Never>) in
        queue.async { [self] in
          guard !finished else { return continuation.resume(returning: .success(nil)) }
          if isRegularFile { return nextOfFile(continuation) }
          waiter = continuation
          let source = DispatchSource.makeReadSource(fileDescriptor: descriptor.rawValue, queue: queue)
          source.setEventHandler { [self] in readPiece() }
          // Once cancelled, Dispatch has let go of the descriptor.
          source.setCancelHandler { [self] in
            liveSources -= 1
            closeIfDone()
          }
          liveSources += 1
          self.source = source
          source.activate()
        }
      }
    } onCancel: {
      close()
    }
    return try result.get()
  }

  /// Stops reading, whatever was read: a replay that ends early lets go of the descriptor,
  /// and a piece being waited for is `nil`.
  func close() {
    queue.async { [self] in
      deliver(.success(nil))
      finish()
    }
  }

  /// On `queue`: the piece read ahead (or read now), and the one after it read ahead.
  private func nextOfFile(_ continuation: CheckedContinuation<Result<[UInt8]?, Errno>, Never>) {
    // A regular file is always readable: a read never finds nothing ready.
    let piece = ahead ?? readOnce() ?? .success(nil)
    ahead = nil
    continuation.resume(returning: piece)
    guard case .success(.some) = piece else { return finish() }
    // After the resume: the replay decodes this piece while the next is read.
    queue.async { [self] in
      if !finished, ahead == nil { ahead = readOnce() ?? .success(nil) }
    }
  }

  /// One read of a piece, retried when interrupted; `nil` when nothing is ready yet (a pipe).
  private func readOnce() -> Result<[UInt8]?, Errno>? {
    while true {
      do {
        let count = try descriptor.read(into: buffer)
        return .success(count == 0 ? nil : Array(buffer[0..<count]))
      } catch .interrupted {
        continue
      } catch .wouldBlock {
        return nil
      } catch {
        return .failure(error)
      }
    }
  }

  private func readPiece() {
    guard let result = readOnce() else { return }
    source?.cancel()
    source = nil
    deliver(result)
    if case .success(.some) = result { return }
    finish()
  }

  private func deliver(_ result: Result<[UInt8]?, Errno>) {
    guard let waiter else { return }
    self.waiter = nil
    waiter.resume(returning: result)
  }

  /// The end: no more sources, and the descriptor closed once Dispatch has let go of it.
  private func finish() {
    guard !finished else { return }
    finished = true
    source?.cancel()
    source = nil
    closeIfDone()
  }

  private func closeIfDone() {
    guard finished, liveSources == 0, closesDescriptor else { return }
    try? descriptor.close()
  }
}
