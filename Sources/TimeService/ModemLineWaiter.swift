import NMEA
import Plumbing
import Transports

/// A serial port's DCD or CTS line as a pulse-per-second input: `TIOCMIWAIT` wakes on each
/// change of the line, the system clock is read at once, and `TIOCMGET` says whether it was
/// the assert (rising) edge.
///
/// The port is opened a second time, read-only, for the waiting alone: the receiver's bytes
/// are read through the first. (As root, or as the user that holds the port: the first open
/// makes the port exclusive to its user.)
package final class ModemLineWaiter: @unchecked Sendable {
  private let descriptor: FileDescriptor
  private let bit: Int32

  package init(path: String, line: PulseSource.ModemLine) throws(PPSDevice.Failure) {
    bit = line == .dcd ? TIOCM_CD : TIOCM_CTS
    // Kept only once checked: a throw after every stored property is set runs `deinit`,
    // which would close the descriptor again (see PPSDevice).
    let descriptor: FileDescriptor
    do {
      descriptor = try FileDescriptor.open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    } catch {
      throw PPSDevice.Failure(description: "cannot open \(path) to wait on its \(line.rawValue.uppercased()) line: \(error).")
    }
    var status: Int32 = 0
    guard ioctl(descriptor.rawValue, UInt(TIOCMGET), &status) == 0 else {
      let error = Errno.current
      try? descriptor.close()
      throw PPSDevice.Failure(
        description: "\(path) has no modem lines to wait on (\(error)): a pseudo-terminal or a USB receiver without a PPS line; "
          + "name a PPS device (--pps /dev/ppsN) instead.")
    }
    self.descriptor = descriptor
  }

  deinit { try? descriptor.close() }

  /// Waits for the line to change; the time of an assert edge, `nil` for a release.
  package func nextAssert() throws(Errno) -> UTCTimestamp? {
    guard ioctl(descriptor.rawValue, UInt(TIOCMIWAIT), UnsafeMutableRawPointer(bitPattern: Int(bit))!) == 0 else {
      let error = Errno.current
      if error == .interrupted { return nil }
      throw error
    }
    let time = WallClock.now
    var status: Int32 = 0
    guard ioctl(descriptor.rawValue, UInt(TIOCMGET), &status) == 0 else { throw Errno.current }
    return status & bit != 0 ? time : nil
  }
}
