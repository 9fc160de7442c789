import Plumbing

/// Unbuffered writes to the standard streams. A closed stdout (`gpsbridge | head`) ends
/// the program quietly with status 0, as a pipeline expects.
enum Terminal {
  static let standardOutputIsTerminal = isatty(1) == 1
  static let standardErrorIsTerminal = isatty(2) == 1

  static func write(_ text: String, to descriptor: CInt = 1) {
    writeBytes(Array(text.utf8), to: descriptor)
  }

  static func writeBytes(_ bytes: [UInt8], to descriptor: CInt = 1) {
    bytes.withUnsafeBufferPointer { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          if errno == EPIPE && descriptor == 1 { exit(0) }
          return
        }
        offset += written
      }
    }
  }

  /// Diagnostics go to stderr, never into the data on stdout.
  static func diagnostic(_ text: String) {
    write(text + "\n", to: 2)
  }
}
