import Plumbing
import SourceStatus

/// An open serial device in raw 8N1, held exclusively, whose original settings are put back
/// on ``close()``.
final class SerialPort: Sendable {
  let path: String
  let descriptor: FileDescriptor
  private let original: TerminalAttributes
  private let configured: TerminalAttributes

  private init(path: String, descriptor: FileDescriptor, original: TerminalAttributes, configured: TerminalAttributes) {
    self.path = path
    self.descriptor = descriptor
    self.original = original
    self.configured = configured
  }

  /// Opens `path`: non-blocking, without becoming its controlling terminal, exclusively,
  /// raw 8N1 at `baudRate`. This is the one place where an ``Errno`` becomes a
  /// ``SourceError`` whose message says what to do.
  static func open(_ path: String, baudRate: Int) throws(SourceError) -> SerialPort {
    let descriptor: FileDescriptor
    do {
      descriptor = try FileDescriptor.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK)
    } catch {
      throw describe(error, path: path)
    }
    do {
      try descriptor.lockExclusively()
      try descriptor.setExclusive(true)
    } catch {
      try? descriptor.close()
      throw describe(error == .lockHeld ? .busy : error, path: path)
    }
    let original: TerminalAttributes
    do {
      original = try TerminalAttributes.get(descriptor)
    } catch {
      try? descriptor.close()
      throw describe(error, path: path)
    }
    var settings = original
    settings.makeRaw8N1()
    guard settings.setSpeed(baudRate) else {
      try? descriptor.close()
      throw .unsupportedBaudRate(path: path, rate: baudRate, supportedRates: BaudRate.candidates)
    }
    // What the receiver sent before the port opened is kept, not discarded: after a replug it
    // is the start of the first epoch (bytes at a wrong speed are only counted as noise).
    do {
      try settings.apply(to: descriptor)
    } catch {
      try? descriptor.close()
      throw describe(error, path: path)
    }
    return SerialPort(path: path, descriptor: descriptor, original: original, configured: settings)
  }

  /// Changes the speed (for autobaud) and discards what arrived at the old one.
  func setBaudRate(_ rate: Int) throws(Errno) {
    var settings = configured
    guard settings.setSpeed(rate) else { throw .invalidArgument }
    try settings.apply(to: descriptor)
    try descriptor.discardInput()
  }

  /// Puts the original settings back, releases exclusive use and the lock, and closes: the
  /// next open succeeds at once, even while a process being started holds a copy of the
  /// descriptor. Errors are ignored: an unplugged device is already gone.
  func close() {
    try? original.apply(to: descriptor)
    try? descriptor.setExclusive(false)
    try? descriptor.unlock()
    try? descriptor.close()
  }

  /// The group that may open the node at `path` (read and write for its group), other than
  /// root's: joining it is the cure; `nil` when only root may (no group helps).
  static func openingGroup(of path: String) -> String? {
    var status = stat()
    guard stat(path, &status) == 0, status.st_gid != 0, status.st_mode & 0o060 == 0o060, let group = getgrgid(status.st_gid) else {
      return nil
    }
    return String(cString: group.pointee.gr_name)
  }

  /// The user-facing error for a failed system call on `path`.
  static func describe(_ error: Errno, path: String) -> SourceError {
    switch error {
    case .permissionDenied, .notPermitted: .permissionDenied(path: path, group: openingGroup(of: path))
    case .noSuchFile, .noSuchDevice, .noSuchDeviceOrAddress: .noDevice(path: path)
    case .busy: .deviceBusy(path: path)
    case .notATerminal, .invalidArgument, .isDirectory: .notASerialDevice(path: path)
    default: .deviceFailed(path: path, description: error.description)
    }
  }
}
