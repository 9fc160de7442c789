import Plumbing

/// A device path with wildcards in its last part, such as `/dev/serial/by-id/*u-blox*`: every
/// receiver whose name matches, now and whenever one is plugged in.
///
/// Wildcards are the shell's (`*`, `?`, `[…]`, as `fnmatch(3)` reads them) and only in the last
/// part: the directory is watched for names that appear in it (a `DeviceWatcher`), and a
/// pattern across directories would need a watch on every directory it could match.
public struct DevicePattern: Hashable, Sendable, CustomStringConvertible {
  /// The directory whose entries are matched.
  public let directory: String
  /// The pattern for the entry's name.
  public let name: String

  /// The pattern in `path`; `nil` when `path` has no wildcard, so it names one device.
  /// - Throws: a message when the wildcards are not all in the last part.
  public init?(_ path: String) throws(DevicePatternError) {
    guard Self.hasWildcard(path) else { return nil }
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[..<$0]) } ?? "."
    guard !Self.hasWildcard(directory) else { throw DevicePatternError(pattern: path) }
    self.directory = directory.isEmpty ? "/" : directory
    name = String(path[(slash.map { path.index(after: $0) } ?? path.startIndex)...])
  }

  public static func hasWildcard(_ text: String) -> Bool { text.contains { $0 == "*" || $0 == "?" || $0 == "[" } }

  public var description: String { (directory == "/" ? "" : directory) + "/" + name }

  /// Whether `entry`, a name in ``directory``, matches. Names starting with a dot match only
  /// a pattern that starts with one, as in the shell.
  public func matches(_ entry: String) -> Bool { Self.entry(entry, matches: name) }

  static func entry(_ entry: String, matches pattern: String) -> Bool {
    if entry.hasPrefix("."), !pattern.hasPrefix(".") { return false }
    return fnmatch(pattern, entry, 0) == 0
  }

  /// The character devices that match now (links followed), sorted by name: the order in
  /// which they are served, so the same set of receivers is numbered the same at each start.
  public func matchingDevices() -> [String] {
    guard let stream = opendir(directory) else { return [] }
    defer { closedir(stream) }
    var found: [String] = []
    while let entry = readdir(stream) {
      let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard entryName != ".", entryName != "..", matches(entryName) else { continue }
      let path = (directory == "/" ? "" : directory) + "/" + entryName
      var status = stat()
      guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFCHR else { continue }
      found.append(path)
    }
    return found.sorted()
  }

  /// Waits for names in ``directory`` that match to appear (created, renamed into place, or
  /// given new permissions by udev).
  package func watcher() -> DeviceWatcher {
    DeviceWatcher(path: description)
  }
}

/// A device pattern with wildcards before its last part.
public struct DevicePatternError: Error, CustomStringConvertible {
  package let pattern: String
  public var description: String {
    "'\(pattern)' has wildcards before its last part; only the device's own name may have them, like /dev/serial/by-id/*u-blox*."
  }
}
