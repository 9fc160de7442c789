import Foundation
import Testing

@testable import StatusService

/// The page embeds the box's status as JSON in a script element. Names in it are other
/// people's words (a receiver's link, an NTRIP caster's status line): none of them may end or
/// change the element, and the page must read them back exactly.
struct StatusPageEscapingTests {
  static let hostile = [
    "<!--<script>", "</script><script>alert(1)</script>", "a</SCRIPT >b", "<![CDATA[", "&lt;", "\\<", "x>y",
  ]

  @Test(arguments: hostile)
  func aHostileNameNeitherEndsNorChangesTheScriptElement(_ name: String) throws {
    let status = try JSONSerialization.data(withJSONObject: ["receivers": [["device": name]]])
    let page = String(decoding: StatusPage.html(initial: Array(status)), as: UTF8.self)
    let opening = #"<script id="initial" type="application/json">"#
    let start = try #require(page.range(of: opening)).upperBound
    let end = try #require(page[start...].range(of: "</script>")).lowerBound
    let embedded = String(page[start..<end])
    // No "<" at all: nothing in it can open a comment, a script, or close the element.
    #expect(!embedded.contains("<") && !embedded.contains(">") && !embedded.contains("&"), "\(embedded)")
    // And JSON.parse's view of it is the name as it was.
    let parsed = try JSONSerialization.jsonObject(with: Data(embedded.utf8)) as? [String: Any]
    let device = (parsed?["receivers"] as? [[String: Any]])?.first?["device"] as? String
    #expect(device == name)
  }
}
