import Foundation

/// The project's documentation as its tests read it: the README (the front page) and the
/// articles of the DocC catalog (the reference). An example is tested wherever it lives, so
/// moving a section from one to the other changes no test.
public enum Documentation {
  /// The repository, found from this file's place in the tree.
  public static let repository = fixturesDirectory.deletingLastPathComponent()

  /// The front page.
  public static let readme = repository.appendingPathComponent("README.md")

  /// The DocC catalog whose articles hold the reference.
  public static let catalog = repository.appendingPathComponent("Sources/GPSLocation/GPSLocation.docc")

  /// The catalog's articles, by file name.
  public static func articles() throws -> [URL] {
    try FileManager.default.contentsOfDirectory(at: catalog, includingPropertiesForKeys: nil)
      .filter { $0.pathExtension == "md" }
      .sorted { $0.lastPathComponent < $1.lastPathComponent }
  }

  /// The README, then every article: for tests that look for a block or a line anywhere.
  public static func text() throws -> String {
    try ([readme] + articles()).map { try String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n\n")
  }

  /// The file whose heading (of any level) is `title`: an article's before the README's, since
  /// the front page repeats a short form of what the reference says in full.
  public static func file(holding title: String) throws -> URL {
    for file in try articles() + [readme] where try section(title, in: String(contentsOf: file, encoding: .utf8)) != nil {
      return file
    }
    throw Missing(title: title)
  }

  /// The text under the heading `title`, up to the next heading of its level or above (an
  /// article's title: to its end); headings are not looked for inside code blocks, where a
  /// `#` starts a shell comment.
  public static func section(_ title: String) throws -> String {
    let file = try file(holding: title)
    return try section(title, in: String(contentsOf: file, encoding: .utf8)) ?? ""
  }

  /// The part of `text` under the heading `title`, or `nil` when it has none.
  static func section(_ title: String, in text: String) -> String? {
    var level: Int?
    var inCode = false
    var lines: [Substring] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") { inCode.toggle() }
      let hashes = inCode ? 0 : line.prefix { $0 == "#" }.count
      let isHeading = hashes > 0 && line.dropFirst(hashes).hasPrefix(" ")
      if let open = level {
        if isHeading && hashes <= open { break }
        lines.append(line)
      } else if isHeading && line.dropFirst(hashes + 1) == title {
        level = hashes
      }
    }
    return level == nil ? nil : lines.joined(separator: "\n")
  }

  /// No heading in the documentation has the title looked for.
  public struct Missing: Error, CustomStringConvertible {
    public let title: String
    public var description: String { "no README section or DocC article has the heading '\(title)'" }
  }
}
