import Foundation
import Plumbing
import TestHelpers

/// A hand-made gpsd client over a plain socket, for sending what real clients never would.
final class RawClient: @unchecked Sendable {
  let socket: FileDescriptor
  /// Set by ``abort()``: the descriptor is closed already, and its number may be another's now.
  private var closed = false
  private var complete: [String] = []
  private var partial: [UInt8] = []

  init(port: Int, receiveBuffer: Int? = nil) throws {
    socket = try FileDescriptor.connectTCP(host: "127.0.0.1", port: port)
    if var size = receiveBuffer.map(CInt.init) {
      setsockopt(socket.rawValue, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<CInt>.size))
    }
  }

  deinit { if !closed { try? socket.close() } }

  /// Sends `text`; a server that has closed the connection is an error, not a SIGPIPE that
  /// would end the whole test process.
  func send(_ text: String) throws {
    let bytes = Array(text.utf8)
    var sent = 0
    while sent < bytes.count {
      let count = try bytes.withUnsafeBytes { raw in
        try Result { () throws(Errno) in try socket.sendSome(UnsafeRawBufferPointer(rebasing: raw[sent...])) }.get()
      }
      if count == 0 { _ = poll(nil, 0, 10) }  // the socket is full: a moment, then on
      sent += count
    }
  }

  /// Reads for `seconds` (or until `until` says enough of the complete lines), giving all
  /// lines received so far. Lines are split as they come and `until` is asked at most every
  /// 20 ms: a client that went over everything it had on every read would fall behind a fast
  /// server on a busy machine, and be dropped as one that stopped reading.
  @discardableResult
  func readBlocking(for seconds: Double = 1, until done: ([String]) -> Bool = { _ in false }) -> [String] {
    let deadline = Date().addingTimeInterval(seconds)
    var nextCheck = Date()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while Date() < deadline {
      if Date() >= nextCheck {
        if done(complete) { break }
        nextCheck = Date().addingTimeInterval(0.02)
      }
      var descriptor = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 20) > 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { raw in (try? socket.read(into: raw)) ?? -1 }
      if count <= 0 { break }
      take(buffer[0..<count])
    }
    return lines
  }

  /// ``readBlocking(for:until:)`` on a thread of its own: the test runner's pool has two
  /// threads on a 2-core machine, and a test that blocked one for seconds starved the servers
  /// and receivers of every other test (two README and gpspipe tests failed at once that way).
  @discardableResult
  func read(for seconds: Double = 1, until done: @escaping @Sendable ([String]) -> Bool = { _ in false }) async -> [String] {
    (try? await offThePool { self.readBlocking(for: seconds, until: done) }) ?? []
  }

  private func take(_ bytes: ArraySlice<UInt8>) {
    var start = bytes.startIndex
    while let newline = bytes[start...].firstIndex(of: 0x0A) {
      partial += bytes[start..<newline]
      if !partial.isEmpty { complete.append(String(decoding: partial, as: UTF8.self)) }
      partial.removeAll(keepingCapacity: true)
      start = newline + 1
    }
    partial += bytes[start...]
  }

  /// Whether the server has closed the connection (a read gives end of file).
  var isClosedByServer: Bool {
    var descriptor = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, 200) > 0 else { return false }
    var byte: UInt8 = 0
    return recv(socket.rawValue, &byte, 1, CInt(MSG_PEEK)) == 0
  }

  /// The lines received whole so far: a server's last line may be cut by the read that ended
  /// (a full socket sends part of it), and a cut line is not one the server wrote.
  var completeLines: [String] { complete }

  /// The lines received so far, the last one perhaps still incomplete.
  var lines: [String] {
    partial.isEmpty ? complete : complete + [String(decoding: partial, as: UTF8.self)]
  }

  /// Drops the connection at once, with a reset rather than a goodbye.
  func abort() {
    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
    setsockopt(socket.rawValue, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    try? socket.close()
    closed = true
  }
}
