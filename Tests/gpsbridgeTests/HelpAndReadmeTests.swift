import Foundation
import Testing

@testable import gpsbridge

/// The help is made from the option tables the parser reads; these pin what a reader sees, and
/// that the README lists exactly the options `--help` does.
@Suite struct HelpAndReadmeTests {
  /// Every `--option` named in `text`.
  static func optionNames(in text: some StringProtocol) -> Set<String> {
    var names = Set<String>()
    var index = text.startIndex
    while let range = text[index...].range(of: "--") {
      var end = range.upperBound
      while end < text.endIndex, text[end].isLetter || text[end] == "-" { end = text.index(after: end) }
      let name = String(text[range.lowerBound..<end])
      if name.count > 3 { names.insert(name) }
      index = end
    }
    return names
  }

  @Test(arguments: HelpTopic.allCases)
  func everyOptionOfTheParserIsInTheHelp(_ topic: HelpTopic) {
    let help = Help.text(topic)
    let page = Help.page(topic)
    for (_, left, _) in page.rows {
      #expect(help.contains("  " + left), "\(topic): \(left)")
    }
    #expect(help.hasPrefix("OVERVIEW: ") && help.contains("\nUSAGE: gpsbridge"))
  }

  @Test func noHelpLineIsWiderThanATerminal() {
    for topic in HelpTopic.allCases {
      for line in Help.text(topic).split(separator: "\n") where !line.hasPrefix("USAGE:") && !line.hasPrefix("  gpsbridge") {
        #expect(line.count <= HelpPage.width, "\(topic): \(line)")
      }
    }
  }

  /// The README's synopsis block is made from the option tables, as `--help`'s USAGE is: the
  /// two show the same options, brackets and alternatives.
  @Test func theReadmesSynopsesAreTheOnesTheOptionTablesMake() throws {
    let readme = try String(contentsOf: Program.fixtures.deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
    let start = try #require(readme.range(of: "## Command line\n\n```\n"))
    let end = try #require(readme[start.upperBound...].range(of: "\n```"))
    let block = String(readme[start.upperBound..<end.lowerBound])
    let expected = Help.synopses.joined(separator: "\n")
    #expect(block == expected, "the README's block should be:\n\(expected)")
    // And --help's USAGE is the same synopsis, wrapped for a terminal.
    for topic in HelpTopic.allCases {
      let usage = Help.page(topic).usage.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
      let inReadme = Help.spec(topic) { $0.synopsis(width: 100, lead: 0) }.map { $0.trimmingCharacters(in: .whitespaces) }
        .joined(separator: " ")
      #expect(usage == inReadme, "\(topic)")
    }
  }

  @Test func theReadmeListsExactlyTheOptionsOfTheHelp() throws {
    let readme = try String(contentsOf: Program.fixtures.deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
    let start = try #require(readme.range(of: "## Command line"))
    let end = try #require(readme[start.upperBound...].range(of: "\n## "))
    let section = readme[start.upperBound..<end.lowerBound]
    let help = HelpTopic.allCases.map { Help.text($0) }.joined(separator: "\n")
    let inHelp = Self.optionNames(in: help).subtracting(["--help", "--version"])
    let inReadme = Self.optionNames(in: section).subtracting(["--help", "--version"])
    #expect(inReadme.subtracting(inHelp).sorted() == [], "in the README but not in --help")
    #expect(inHelp.subtracting(inReadme).sorted() == [], "in --help but not in the README's Command line section")
  }
}
