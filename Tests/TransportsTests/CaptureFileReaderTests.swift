import Foundation
import Plumbing
import Testing

@testable import Transports

/// A capture read by Dispatch read sources, a piece when the replay asks: a pipe's pieces
/// as they come and its end, a reader waiting on a silent pipe that is cancelled, and a file
/// read piece by piece to its end.
@Suite(.timeLimit(.minutes(3)))
struct CaptureFileReaderTests {
  static func pipe() throws -> (read: FileDescriptor, write: FileDescriptor) {
    var ends: [Int32] = [-1, -1]
    guard Glibc.pipe(&ends) == 0 else { throw Errno.current }
    return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
  }

  @Test func aPipesPiecesComeAsTheyAreWrittenThenItsEnd() async throws {
    let (readEnd, writeEnd) = try Self.pipe()
    let reader = CaptureFileReader(readEnd, closesDescriptor: true)
    try writeEnd.writeAll(Array("$GPGGA,1\r\n".utf8))
    #expect(try await reader.next() == Array("$GPGGA,1\r\n".utf8))
    // The next piece is asked for before it is written: the reader waits without a thread.
    let waiting = Task { try await reader.next() }
    try writeEnd.writeAll(Array("$GPRMC,2\r\n".utf8))
    #expect(try await waiting.value == Array("$GPRMC,2\r\n".utf8))
    try writeEnd.close()
    #expect(try await reader.next() == nil)
    #expect(try await reader.next() == nil)
  }

  @Test func aReaderWaitingOnASilentPipeEndsWhenCancelled() async throws {
    let (readEnd, writeEnd) = try Self.pipe()
    defer { try? writeEnd.close() }
    let reader = CaptureFileReader(readEnd, closesDescriptor: true)
    let waiting = Task { try await reader.next() }
    waiting.cancel()
    #expect(try await waiting.value == nil)
  }

  @Test func aFileIsReadPieceByPieceToItsEnd() async throws {
    let path = scratchPath("capture-reader.nmea")
    defer { unlink(path) }
    let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let reader = CaptureFileReader(try FileDescriptor.openForReading(path), closesDescriptor: true)
    var read: [UInt8] = []
    var pieces = 0
    while let piece = try await reader.next() {
      #expect(piece.count <= 65_536)
      read += piece
      pieces += 1
    }
    #expect(read == bytes)
    #expect(pieces == 4)
  }

  func scratchPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("\(getpid())-\(name)").path
  }
}
