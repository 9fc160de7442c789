/// Finding and replacing text in strings with the standard library alone.
///
/// `String.contains("://")`, `replacing(_:with:)` and `split(separator: "\n\n")` with a string
/// come from `_StringProcessing`, the regex engine's module: one call links all of it (and its
/// parser), about 1.5 MB of the installed program. The program's text is ASCII (options,
/// protocols, paths), so these compare UTF-8 bytes, which for ASCII is the same as comparing
/// characters. `Scripts/check-budgets` fails when the regex engine is linked again.
extension StringProtocol {
  /// The first range where `text` occurs, comparing UTF-8 bytes.
  package func range(ofText text: some StringProtocol) -> Range<Index>? {
    let needle = Array(text.utf8)
    guard let first = needle.first else { return startIndex..<startIndex }
    let bytes = utf8
    var start = bytes.startIndex
    while let found = bytes[start...].firstIndex(of: first) {
      var end = found
      var matched = 0
      while matched < needle.count, end != bytes.endIndex, bytes[end] == needle[matched] {
        bytes.formIndex(after: &end)
        matched += 1
      }
      if matched == needle.count { return found..<end }
      start = bytes.index(after: found)
    }
    return nil
  }

  /// Whether `text` occurs in this string, comparing UTF-8 bytes.
  package func includes(_ text: some StringProtocol) -> Bool { range(ofText: text) != nil }

  /// This string with every occurrence of `text` replaced by `replacement`, left to right.
  package func replacingEvery(_ text: some StringProtocol, with replacement: some StringProtocol) -> String {
    var result = ""
    var rest = self[...]
    while !text.isEmpty, let found = rest.range(ofText: text) {
      result += rest[..<found.lowerBound]
      result += replacement
      rest = rest[found.upperBound...]
    }
    result += rest
    return result
  }

  /// The pieces between occurrences of `separator`, empty ones kept (as many as separators
  /// plus one).
  package func pieces(separatedBy separator: some StringProtocol) -> [SubSequence] {
    var pieces: [SubSequence] = []
    var rest = self[...]
    while !separator.isEmpty, let found = rest.range(ofText: separator) {
      pieces.append(rest[..<found.lowerBound])
      rest = rest[found.upperBound...]
    }
    pieces.append(rest)
    return pieces
  }
}
