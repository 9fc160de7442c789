/// The system calls whose failures gpsbridge handles, each behind one shim, so a test can
/// stand in for the kernel (force `EINTR` or `EAGAIN`) and check what the wrappers do with it.
///
/// A shim asks the current ``SystemCallScript`` first (a task-local, set only by tests); with
/// none, or none left for that call, it makes the real call.

package func system_open(_ path: UnsafePointer<CChar>, _ flags: CInt, _ mode: mode_t) -> CInt {
  if let script = SystemCallScript.current, let scripted = script.next(.open, path: String(cString: path)) { return CInt(scripted) }
  return open(path, flags, mode)
}

package func system_read(_ descriptor: CInt, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  if let scripted = SystemCallScript.current?.next(.read) { return scripted }
  return read(descriptor, buffer, count)
}

package func system_write(_ descriptor: CInt, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
  if let scripted = SystemCallScript.current?.next(.write) { return scripted }
  return write(descriptor, buffer, count)
}

package func system_close(_ descriptor: CInt) -> CInt {
  if let scripted = SystemCallScript.current?.next(.close) { return CInt(scripted) }
  return close(descriptor)
}

package func system_connect(_ descriptor: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> CInt {
  if let scripted = SystemCallScript.current?.next(.connect) { return CInt(scripted) }
  return connect(descriptor, address, length)
}

package func system_accept(_ descriptor: CInt) -> CInt {
  accept(descriptor, nil, nil)
}

/// Results a test makes the shims return instead of calling the kernel, in order per call.
/// A result of -1 comes with its `errno`. Every shim call is recorded in ``calls``, scripted
/// or not.
package final class SystemCallScript: @unchecked Sendable {
  package enum Call: Hashable, Sendable {
    case open, read, write, close, connect
  }

  @TaskLocal package static var current: SystemCallScript?

  private let lock = Locked<State>(State())
  private struct State {
    var pending: [Call: [(result: Int, errno: CInt)]] = [:]
    var calls: [Call] = []
    var opened: [String] = []
  }

  package init(_ script: [Call: [(result: Int, errno: CInt)]]) {
    lock.withLock { $0.pending = script }
  }

  /// Every shim call made while this script was current, in order.
  package var calls: [Call] { lock.withLock { $0.calls } }

  /// The paths given to `open`, in order.
  package var opened: [String] { lock.withLock { $0.opened } }

  func next(_ call: Call, path: String? = nil) -> Int? {
    let step = lock.withLock { state -> (result: Int, errno: CInt)? in
      state.calls.append(call)
      if let path { state.opened.append(path) }
      guard var queue = state.pending[call], !queue.isEmpty else { return nil }
      let step = queue.removeFirst()
      state.pending[call] = queue
      return step
    }
    guard let step else { return nil }
    if step.result == -1 { errno = step.errno }
    return step.result
  }
}
