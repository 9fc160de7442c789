/// A Linux inotify instance, non-blocking and close-on-exec: what happens in the directories
/// it watches, read as it comes. Where there is no inotify, ``open()`` throws and callers
/// fall back to checking now and then.
package struct Inotify: Sendable {
  package let descriptor: FileDescriptor

  /// One event: the watch it came from, what happened, and the name in that directory.
  package struct Event: Hashable, Sendable {
    package var watch: CInt
    package var mask: UInt32
    package var name: String
  }

  #if canImport(Glibc) || canImport(Musl)
    /// A name was created in the directory.
    package static let created = UInt32(IN_CREATE)
    /// A name was moved into the directory (udev makes links under a temporary name and renames them).
    package static let movedTo = UInt32(IN_MOVED_TO)
    /// A name's metadata changed (permissions set after a device node appears).
    package static let attributesChanged = UInt32(IN_ATTRIB)
    /// The watch is gone (its directory was deleted); the kernel removed it.
    package static let ignored = UInt32(IN_IGNORED)
    /// Events were lost: the queue overflowed.
    package static let overflow = UInt32(IN_Q_OVERFLOW)
    /// The name is a directory.
    package static let isDirectory = UInt32(IN_ISDIR)

    package static func open() throws(Errno) -> Inotify {
      Inotify(descriptor: FileDescriptor(rawValue: try valueOrErrno { inotify_init1(CInt(IN_NONBLOCK | IN_CLOEXEC)) }))
    }

    /// Watches the directory at `path` for `mask`; watching it again returns the same watch.
    package func addWatch(_ path: String, mask: UInt32) throws(Errno) -> CInt {
      try valueOrErrno { path.withCString { inotify_add_watch(descriptor.rawValue, $0, mask) } }
    }
  #else
    package static let created: UInt32 = 0x100
    package static let movedTo: UInt32 = 0x80
    package static let attributesChanged: UInt32 = 0x4
    package static let ignored: UInt32 = 0x8000
    package static let overflow: UInt32 = 0x4000
    package static let isDirectory: UInt32 = 0x4000_0000

    package static func open() throws(Errno) -> Inotify { throw Errno(rawValue: ENOSYS) }
    package func addWatch(_ path: String, mask: UInt32) throws(Errno) -> CInt { throw Errno(rawValue: ENOSYS) }
  #endif

  /// The events queued now, in order; none when nothing happened since the last read.
  package func readEvents() throws(Errno) -> [Event] {
    var events: [Event] = []
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
    defer { buffer.deallocate() }
    while true {
      let count: Int
      do {
        count = try descriptor.read(into: buffer)
      } catch .wouldBlock {
        return events
      }
      // Each event: watch (4 bytes), mask (4), cookie (4), name length (4), then the name,
      // NUL-padded to that length.
      var offset = 0
      while offset + 16 <= count {
        let watch = buffer.loadUnaligned(fromByteOffset: offset, as: CInt.self)
        let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
        let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
        let nameBytes = UnsafeRawBufferPointer(rebasing: buffer[(offset + 16)..<min(count, offset + 16 + length)])
        let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        events.append(Event(watch: watch, mask: mask, name: name))
        offset += 16 + length
      }
      if count == 0 { return events }
    }
  }

  package func close() {
    try? descriptor.close()
  }
}
