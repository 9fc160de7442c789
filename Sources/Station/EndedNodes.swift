#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The device nodes whose receivers ended, as they were then: one is found again only once its
/// node is another (plugged in again, given new permissions by udev), not at every change in
/// its directory (a path that is no serial device was said again every few seconds).
struct EndedNodes {
  private var identities: [String: NodeIdentity?] = [:]

  /// The node at `path` (links followed) as it is now.
  struct NodeIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
    var changed: Int
    var changedNanoseconds: Int

    init?(_ path: String) {
      var status = stat()
      guard stat(path, &status) == 0 else { return nil }
      device = UInt64(status.st_dev)
      inode = UInt64(status.st_ino)
      changed = Int(status.st_ctim.tv_sec)
      changedNanoseconds = Int(status.st_ctim.tv_nsec)
    }
  }

  /// Notes that the receiver at `path` ended, with its node as it is now.
  mutating func note(_ path: String) { identities[path] = .some(NodeIdentity(path)) }

  /// Whether `path` may be found: it never ended, or its node is not the one that ended.
  mutating func isNew(_ path: String) -> Bool {
    guard let entry = identities[path] else { return true }
    guard let before = entry, before == NodeIdentity(path) else {
      identities[path] = nil
      return true
    }
    return false
  }
}
