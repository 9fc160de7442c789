import Plumbing
import Testing

/// The POSIX wrappers against a kernel that misbehaves on cue: the shims return what the test
/// scripts, then make the real call.
@Suite struct SystemCallTests {
  /// A pipe with `text` written into it, and its read end.
  func pipeHolding(_ text: String) throws -> (read: FileDescriptor, write: FileDescriptor) {
    var ends: [CInt] = [0, 0]
    try #require(pipe(&ends) == 0)
    let pair = (read: FileDescriptor(rawValue: ends[0]), write: FileDescriptor(rawValue: ends[1]))
    try pair.write.writeAll(Array(text.utf8))
    return pair
  }

  @Test func readIsRetriedAfterEINTRAndReturnsTheData() throws {
    let pipe = try pipeHolding("$GPGGA")
    defer { try? pipe.read.close(); try? pipe.write.close() }
    let script = SystemCallScript([.read: [(-1, EINTR), (-1, EINTR)]])
    var buffer = [UInt8](repeating: 0, count: 16)
    let count = try SystemCallScript.$current.withValue(script) {
      try buffer.withUnsafeMutableBytes { raw in try pipe.read.read(into: raw) }
    }
    #expect(count == 6 && String(decoding: buffer[..<count], as: UTF8.self) == "$GPGGA")
    #expect(script.calls == [.read, .read, .read])
  }

  @Test func eagainOnANonBlockingReadIsThrownAsWouldBlockNotRetried() throws {
    let pipe = try pipeHolding("x")
    defer { try? pipe.read.close(); try? pipe.write.close() }
    let script = SystemCallScript([.read: [(-1, EAGAIN)]])
    var buffer = [UInt8](repeating: 0, count: 4)
    #expect(throws: Errno.wouldBlock) {
      try SystemCallScript.$current.withValue(script) {
        _ = try buffer.withUnsafeMutableBytes { raw in try pipe.read.read(into: raw) }
      }
    }
    #expect(script.calls == [.read])
  }

  @Test func writeAllRetriesEINTRAndFinishesAPartialWrite() throws {
    var ends: [CInt] = [0, 0]
    try #require(pipe(&ends) == 0)
    let reader = FileDescriptor(rawValue: ends[0]), writer = FileDescriptor(rawValue: ends[1])
    defer { try? reader.close(); try? writer.close() }
    // EINTR first, then the kernel takes only 2 bytes; writeAll writes the rest itself.
    let script = SystemCallScript([.write: [(-1, EINTR), (2, 0)]])
    try SystemCallScript.$current.withValue(script) { try writer.writeAll(Array("$GPRMC".utf8)) }
    #expect(script.calls == [.write, .write, .write])
    var buffer = [UInt8](repeating: 0, count: 16)
    let count = try buffer.withUnsafeMutableBytes { raw in try reader.read(into: raw) }
    // The scripted short write wrote nothing real: the real call sent bytes 2 onwards.
    #expect(String(decoding: buffer[..<count], as: UTF8.self) == "PRMC")
  }

  @Test func closeIsNotRetriedAfterEINTR() throws {
    var ends: [CInt] = [0, 0]
    try #require(pipe(&ends) == 0)
    defer { _ = Plumbing.close(ends[0]); _ = Plumbing.close(ends[1]) }
    let script = SystemCallScript([.close: [(-1, EINTR)]])
    #expect(throws: Errno.interrupted) {
      try SystemCallScript.$current.withValue(script) { try FileDescriptor(rawValue: ends[0]).close() }
    }
    #expect(script.calls == [.close])
  }

  @Test func openReportsTheReasonItFailed() {
    #expect(throws: Errno.noSuchFile) { try FileDescriptor.open("/nonexistent/gpsbridge", O_RDONLY) }
  }
}
