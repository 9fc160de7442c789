import Foundation
import Plumbing

/// A TCP server on 127.0.0.1 that sends each client the given lines and then keeps the
/// connection open without a word (a stand-in for a gpsd that has gone silent), or, with
/// `hangsUp`, closes it at once.
public final class ScriptedServer: @unchecked Sendable {
  public let port: Int
  private let listener: CInt
  private let lock = NSLock()
  private var clients: [CInt] = []
  private var accepted = 0
  private var closed = false
  /// Signalled when the accepting thread has returned: only then is the listener closed, so
  /// that thread never accepts on a number closed and given to another test's socket.
  private let acceptingEnded = DispatchSemaphore(value: 0)

  /// How many connections were accepted.
  public var connections: Int { lock.withLock { accepted } }

  public init(lines: [String], hangsUp: Bool = false) throws {
    listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var on: CInt = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<CInt>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let socketFD = listener
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socketFD, $0, length) == 0 && getsockname(socketFD, $0, &length) == 0
      }
    }
    guard bound, listen(listener, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
    port = Int(UInt16(bigEndian: address.sin_port))
    let text = Data(lines.map { $0 + "\r\n" }.joined().utf8)
    let listener = self.listener
    Thread.detachNewThread { [self] in
      defer { acceptingEnded.signal() }
      while true {
        let client = accept(listener, nil, nil)
        guard client >= 0 else {
          if errno == EINTR || errno == ECONNABORTED { continue }
          return
        }
        _ = text.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        lock.withLock {
          accepted += 1
          if hangsUp { close(client) } else { clients.append(client) }
        }
      }
    }
  }

  public func stop() {
    let first = lock.withLock {
      guard !closed else { return false }
      closed = true
      // Wakes the thread blocked in accept(2), which then returns.
      shutdown(listener, Int32(SHUT_RDWR))
      return true
    }
    guard first else { return }
    acceptingEnded.wait()
    lock.withLock {
      close(listener)
      for client in clients { close(client) }
    }
  }
}
