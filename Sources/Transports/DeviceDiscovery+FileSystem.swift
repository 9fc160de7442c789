import Plumbing

/// The file-system reads discovery needs, kept apart so the scan reads as policy.
extension DeviceDiscovery {
  func entries(_ directory: String) -> [String] {
    FileContents.names(in: directory)
  }

  func links(in directory: String) -> [String: String] {
    var result: [String: String] = [:]
    for name in entries(directory) {
      let path = directory + "/" + name
      if let target = readLink(path) { result[path] = target }
    }
    return result
  }

  func readLink(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Follows links to the final path.
  func realPath(_ path: String) -> String? {
    guard let pointer = realpath(path, nil) else { return nil }
    defer { free(pointer) }
    return String(validatingCString: pointer)
  }

  func read(_ path: String) -> String? {
    guard let bytes = try? FileContents.bytes(of: path, limit: 65_536) else { return nil }
    let text = String(decoding: bytes, as: UTF8.self)
    let trimmed = text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
    return trimmed.isEmpty ? nil : String(trimmed)
  }
}
