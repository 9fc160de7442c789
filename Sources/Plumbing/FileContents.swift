/// Small files read whole and directories listed, straight from the C library: a regions
/// file, a device's `/sys` attributes, `/dev`'s entries.
package enum FileContents {
  /// The bytes of the file at `path`, up to `limit`: a larger file is an error (`EFBIG`),
  /// never memory without bound.
  package static func bytes(of path: String, limit: Int = 16 << 20) throws(Errno) -> [UInt8] {
    let file = try FileDescriptor.open(path, O_RDONLY)
    defer { try? file.close() }
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = try file.read(into: &chunk)
      if count == 0 { return contents }
      guard contents.count + count <= limit else { throw Errno(rawValue: EFBIG) }
      contents += chunk[0..<count]
    }
  }

  /// The names in the directory at `path` (without `.` and `..`); empty when it cannot be read.
  package static func names(in path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != ".", name != ".." { names.append(name) }
    }
    return names
  }
}
