import Foundation
import TestHelpers
import Testing

@testable import gpsbridge

/// The help is made from the option tables the parser reads; these pin what a reader sees, and
/// that the Command line article lists exactly the options `--help` does.
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

  /// The documentation's synopsis block ("Command line") is made from the option tables, as
  /// `--help`'s USAGE is: the two show the same options, brackets and alternatives.
  @Test func theDocumentedSynopsesAreTheOnesTheOptionTablesMake() throws {
    let section = try Documentation.section("Command line")
    let start = try #require(section.range(of: "\n```\n"))
    let end = try #require(section[start.upperBound...].range(of: "\n```"))
    let block = String(section[start.upperBound..<end.lowerBound])
    let expected = Help.synopses.joined(separator: "\n")
    #expect(block == expected, "the Command line article's block should be:\n\(expected)")
    // And --help's USAGE is the same synopsis, wrapped for a terminal.
    for topic in HelpTopic.allCases {
      let usage = Help.page(topic).usage.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
      let inReadme = Help.spec(topic) { $0.synopsis(width: 100, lead: 0) }.map { $0.trimmingCharacters(in: .whitespaces) }
        .joined(separator: " ")
      #expect(usage == inReadme, "\(topic)")
    }
  }

  @Test func theCommandLineArticleListsExactlyTheOptionsOfTheHelp() throws {
    let section = try Documentation.section("Command line")
    let help = HelpTopic.allCases.map { Help.text($0) }.joined(separator: "\n")
    let inHelp = Self.optionNames(in: help).subtracting(["--help", "--version"])
    let inReadme = Self.optionNames(in: section).subtracting(["--help", "--version"])
    #expect(inReadme.subtracting(inHelp).sorted() == [], "in the Command line article but not in --help")
    #expect(inHelp.subtracting(inReadme).sorted() == [], "in --help but not in the Command line article")
  }
}
