import Foundation
import TestHelpers
import Testing

/// The README is a front page: short, every section reachable from its top, and every article
/// of the reference reachable from it, so moving the reference out of it lost nothing.
@Suite struct FrontPageTests {
  static let readme = (try? String(contentsOf: Documentation.readme, encoding: .utf8)) ?? ""

  @Test func theReadmeIsAFrontPage() {
    let lines = Self.readme.split(separator: "\n", omittingEmptySubsequences: false).count
    #expect(lines <= 300, "the README has \(lines) lines: the reference belongs in the DocC articles")
  }

  @Test func everySectionIsLinkedFromTheTop() throws {
    let headings = Self.readme.split(separator: "\n").filter { $0.hasPrefix("## ") }.map { String($0.dropFirst(3)) }
    #expect(headings.count >= 8, "\(headings)")
    let top = try #require(Self.readme.components(separatedBy: "\n## ").first)
    for heading in headings {
      #expect(top.contains("](#\(Self.anchor(heading)))"), "'\(heading)' is not linked from the README's top")
    }
  }

  @Test func everyArticleIsLinkedFromTheFrontPageAndFromTheCatalogsTopics() throws {
    let catalog = try String(contentsOf: Documentation.catalog.appendingPathComponent("GPSLocation.md"), encoding: .utf8)
    for article in try Documentation.articles() where article.lastPathComponent != "GPSLocation.md" {
      let name = article.deletingPathExtension().lastPathComponent
      #expect(Self.readme.contains("GPSLocation.docc/\(name).md)"), "the README links no \(name).md")
      #expect(catalog.contains("<doc:\(name)>"), "GPSLocation.md's topics do not list \(name)")
    }
  }

  @Test func everyLinkIntoTheRepositoryReachesAFile() {
    let targets = Self.readme.components(separatedBy: "](").dropFirst().map { String($0.prefix { $0 != ")" }) }
      .filter { !$0.hasPrefix("#") && !$0.contains("://") }
    #expect(targets.count > 20, "\(targets)")
    for target in targets {
      #expect(
        FileManager.default.fileExists(atPath: Documentation.repository.appendingPathComponent(target).path),
        "the README links \(target), which is not in the repository")
    }
  }

  @Test func aSectionEndsAtTheNextHeadingOfItsLevelAndNotAtAShellComment() throws {
    let article = Documentation.catalog.appendingPathComponent("TimeForYourClock.md")
    #expect(try Documentation.file(holding: "Time for your clock") == article)
    let section = try Documentation.section("Time for your clock")
    #expect(section.contains("# /etc/chrony/conf.d/gpsbridge.conf"))  // a comment in a code block
    #expect(section.contains("**Accuracy.**"))  // the article's last paragraph: a title runs to the end
    let replacing = try Documentation.section("Replacing gpsd")
    #expect(replacing.contains("**Security.**") && !replacing.contains("## "))
    #expect(throws: Documentation.Missing.self) { try Documentation.section("No such heading") }
  }

  /// GitHub's anchor for a heading: lower case, spaces to hyphens, punctuation dropped.
  static func anchor(_ heading: String) -> String {
    String(
      heading.lowercased().compactMap { character -> Character? in
        if character == " " { return "-" }
        return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
      })
  }
}
