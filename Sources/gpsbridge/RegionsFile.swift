import GPSLocation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

struct RegionFileError: Error, CustomStringConvertible {
  var description: String
}

/// A JSON array of regions, as `Region`'s Codable form, each checked as `--region` and the
/// engine check them. A problem is named by the region (its place in the list, and its
/// identifier when it has one), the key, and what was expected: never Swift's own error text.
func readRegions(_ path: String) throws(RegionFileError) -> [Region] {
  guard let data = try? OpenFile.contents(of: path) else {
    throw RegionFileError(description: "Cannot read the regions file \(path): \(whyUnreadable(path)).")
  }
  let example = #"[{"identifier": "home", "center": {"latitude": 47.3769, "longitude": 8.5417}, "radius": 100}]"#
  let regions: [Region]
  do {
    regions = try JSONCoding.decode([Region].self, from: data)
  } catch {
    let identifiers = (try? JSONCoding.decode([Named].self, from: data))?.map(\.identifier) ?? []
    throw RegionFileError(description: "\(path): \(describe(error, identifiers: identifiers)). A regions file is like \(example).")
  }
  for (index, region) in regions.enumerated() {
    if let problem = region.problem() {
      throw RegionFileError(description: "\(path): \(name(index, region.identifier)): \(problem).")
    }
  }
  return regions
}

/// Just enough of a region to name it in a message.
private struct Named: Decodable {
  var identifier: String?
}

private func name(_ index: Int, _ identifier: String?) -> String {
  "region \(index + 1)" + (identifier.map { " ('\($0)')" } ?? "")
}

/// A decoding error in words: which region, which key, what was expected.
private func describe(_ error: any Error, identifiers: [String?]) -> String {
  if let error = error as? JSONCoding.SyntaxError { return "not valid JSON (\(error.reason) at byte \(error.offset))" }
  guard let error = error as? DecodingError else { return "\(error)" }
  func place(_ path: [any CodingKey]) -> String {
    guard let index = path.first?.intValue else { return "the file" }
    let keys = path.dropFirst().map(\.stringValue).joined(separator: ".")
    let region = name(index, index < identifiers.count ? identifiers[index] : nil)
    return keys.isEmpty ? region : "\(region), \"\(keys)\""
  }
  func expected(_ type: Any.Type) -> String {
    switch type {
    case is Double.Type, is Int.Type: "a number"
    case is String.Type: "a string"
    case is Bool.Type: "true or false"
    case is [Region].Type, is [Any].Type: "an array of regions"
    default: "an object"
    }
  }
  switch error {
  case .keyNotFound(let key, let context):
    return "\(place(context.codingPath)) has no \"\(key.stringValue)\""
  case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
    return "\(place(context.codingPath)) should be \(expected(type))"
  case .dataCorrupted(let context):
    return context.codingPath.isEmpty ? "not valid JSON" : "\(place(context.codingPath)): \(context.debugDescription)"
  @unknown default:
    return "not a list of regions"
  }
}

/// Why `path` cannot be read, in words that say what to do.
func whyUnreadable(_ path: String) -> String {
  let descriptor = open(path, O_RDONLY)
  let cause = errno
  if descriptor >= 0 {
    var status = stat()
    let isDirectory = fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    close(descriptor)
    return isDirectory ? "it is a directory; name the JSON file in it" : "reading it failed"
  }
  switch cause {
  case ENOENT: return "it does not exist (a path relative to \(currentDirectory) is taken from there)"
  case EACCES: return "this user may not read it (see 'ls -l \(path)')"
  case ENOTDIR: return "a part of its path is not a directory"
  default: return String(cString: strerror(cause))
  }
}

/// The working directory, for saying where a relative path was looked for.
private var currentDirectory: String {
  guard let pointer = getcwd(nil, 0) else { return "the current directory" }
  defer { free(pointer) }
  return String(cString: pointer)
}
