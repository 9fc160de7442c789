import NMEA
import Plumbing

/// A kernel PPS device (`/dev/ppsN`: pps-gpio on a Raspberry Pi, pps-ldisc on a serial port's
/// DCD after `ldattach PPS`), read through the RFC 2783 interface Linux gives it: its
/// capabilities, then each assert edge with a timeout.
package final class PPSDevice: @unchecked Sendable {
  package let path: String
  private let descriptor: FileDescriptor

  /// Why a PPS device cannot be used, with what to do.
  package struct Failure: Error, CustomStringConvertible, Sendable {
    package var description: String
  }

  // linux/pps.h: the ioctl numbers are _IOR/_IOWR('p', …, pointer), so their size is 8.
  static let getCapabilities: UInt = 0x8008_70A3
  static let fetch: UInt = 0xC008_70A4
  static let captureAssert: Int32 = 0x01
  /// `struct pps_fdata`: `pps_kinfo` (48 bytes) then the timeout `pps_ktime` (16).
  static let fetchSize = 64

  /// Opens `path` and checks that it is a PPS device that captures assert edges.
  package init(path: String) throws(Failure) {
    self.path = path
    // Opened into a local, checked, and only then kept: once every stored property is set, a
    // throw runs `deinit`, which would close the descriptor a second time (by then perhaps
    // another thread's, under the same number).
    let descriptor: FileDescriptor
    do {
      descriptor = try FileDescriptor.open(path, O_RDONLY | O_CLOEXEC)
    } catch .noSuchFile {
      throw Failure(description: "\(path) does not exist: is the PPS driver loaded (pps-gpio, or ldattach PPS on the serial port)?")
    } catch .permissionDenied {
      throw Failure(
        description: "no permission to read \(path): PPS devices are root's (mode 0600) unless a udev rule gives them to a group; "
          + "run as root or add one, for example KERNEL==\"pps[0-9]*\", GROUP=\"dialout\", MODE=\"0660\".")
    } catch {
      throw Failure(description: "cannot open \(path): \(error).")
    }
    var mode: Int32 = 0
    if ioctl(descriptor.rawValue, Self.getCapabilities, &mode) != 0 {
      let error = Errno.current
      try? descriptor.close()
      if error == .notATerminal || error == .invalidArgument {
        throw Failure(description: "\(path) is not a PPS device (name /dev/ppsN, or dcd or cts for the serial port's modem line).")
      }
      throw Failure(description: "cannot read \(path)'s PPS capabilities: \(error).")
    }
    guard mode & Self.captureAssert != 0 else {
      try? descriptor.close()
      throw Failure(description: "\(path) cannot capture the pulse's assert edge.")
    }
    self.descriptor = descriptor
  }

  deinit { try? descriptor.close() }

  /// Waits up to `timeout` seconds for the next assert edge: its time by the system clock
  /// (the kernel's own time stamp, taken in the interrupt), or `nil` when none came.
  /// Blocks: call it on a thread of its own.
  package func nextEdge(timeout: Int = 1) throws(Errno) -> (time: UTCTimestamp, sequence: UInt32)? {
    var data = [UInt8](repeating: 0, count: Self.fetchSize)
    data.withUnsafeMutableBytes { raw in
      raw.storeBytes(of: Int64(timeout), toByteOffset: 48, as: Int64.self)
    }
    let result = data.withUnsafeMutableBytes { raw in ioctl(descriptor.rawValue, Self.fetch, raw.baseAddress!) }
    if result != 0 {
      let error = Errno.current
      if error == .timedOut || error == .interrupted { return nil }
      throw error
    }
    return data.withUnsafeBytes { raw in
      let sequence = raw.load(fromByteOffset: 0, as: UInt32.self)
      let seconds = raw.load(fromByteOffset: 8, as: Int64.self)
      let nanoseconds = raw.load(fromByteOffset: 16, as: Int32.self)
      return (UTCTimestamp(nanosecondsSince1970: seconds * 1_000_000_000 + Int64(nanoseconds)), sequence)
    }
  }
}
