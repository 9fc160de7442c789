#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Unbuffered writes to the standard streams.
///
/// Commands that hold nothing open write with ``write(_:to:)``: a closed stdout
/// (`gpsbridge devices | head`) ends the program quietly with status 0, as a pipeline expects;
/// any other failure (a full disk, `> /dev/full`) ends it with status 1 and the cause on
/// stderr. Commands that hold a device write with ``tryWrite(_:)`` and stop cleanly first.
enum Terminal {
  static let standardOutputIsTerminal = isatty(1) == 1
  static let standardErrorIsTerminal = isatty(2) == 1

  static func write(_ text: String, to descriptor: CInt = 1) {
    writeBytes(Array(text.utf8), to: descriptor)
  }

  static func writeBytes(_ bytes: [UInt8], to descriptor: CInt = 1) {
    guard let failure = tryWrite(bytes, to: descriptor), descriptor == 1 else { return }
    exit(outcome(of: failure))
  }

  /// Writes all of `bytes`; the error if that failed.
  static func tryWrite(_ bytes: [UInt8], to descriptor: CInt = 1) -> SystemError? {
    // One writer at a time: a line written from another task (a monitor's event) never lands
    // inside a block that took several write(2) calls.
    writing.withLock { _ in tryWriteUnlocked(bytes, to: descriptor) }
  }

  private static let writing = Shared(())

  private static func tryWriteUnlocked(_ bytes: [UInt8], to descriptor: CInt) -> SystemError? {
    do {
      try OpenFile(descriptor: descriptor).writeAll(bytes)
      return nil
    } catch {
      return error
    }
  }

  /// The exit status for a failed write to stdout, saying why unless the reader simply left.
  static func outcome(of failure: SystemError) -> Int32 {
    guard failure != .brokenPipe else { return 0 }
    diagnostic("Error: cannot write to standard output: \(failure).")
    return 1
  }

  /// Text on stderr as it is (a status line's escapes).
  static func writeError(_ text: String) {
    _ = tryWrite(Array(text.utf8), to: 2)
  }

  /// Diagnostics go to stderr, never into the data on stdout: one line each, whatever the
  /// names in them hold (their control characters are written out).
  static func diagnostic(_ text: String) {
    _ = tryWrite(Array((text.escapingControlCharacters + "\n").utf8), to: 2)
  }

  /// A text of gpsbridge's own that spans lines (the usage): each line shown as
  /// ``diagnostic(_:)`` shows one.
  static func diagnostic(lines text: String) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).escapingControlCharacters }
    _ = tryWrite(Array((lines.joined(separator: "\n") + "\n").utf8), to: 2)
  }
}
