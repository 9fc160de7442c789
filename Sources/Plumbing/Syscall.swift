/// Turns a C call's `-1` into a thrown ``Errno``, retrying `EINTR`, as swift-system does.
@inline(__always)
package func valueOrErrno<Value: FixedWidthInteger>(
  retryOnInterrupt: Bool = true, _ call: () -> Value
) throws(Errno) -> Value {
  while true {
    let result = call()
    if result != -1 { return result }
    let error = Errno.current
    if retryOnInterrupt && error == .interrupted { continue }
    throw error
  }
}
