import Foundation
import Testing

/// The command line's own error messages, as its sources write them, held to the shape of the
/// documentation's "When things go wrong": what happened and the thing it happened to (the
/// path, the option, the value), a whole sentence, and "Error:" said once. Errors that are a
/// value of their own (`\(error)`, `\(error.message)`) are held by their type's tests.
struct MessageGrepTests {
  static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Sources/gpsbridge")

  /// Each `Terminal.diagnostic("Error: …")` call's text, as written (interpolations kept).
  static func errorMessages() throws -> [(file: String, text: String)] {
    var found: [(String, String)] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: sources.path) where name.hasSuffix(".swift") {
      let text = try String(contentsOf: sources.appendingPathComponent(name), encoding: .utf8)
      var rest = Substring(text)
      while let start = rest.range(of: "diagnostic(\"Error: ") {
        // To the call's end: the closing quote followed by ")" at the same nesting.
        var depth = 0
        var index = start.upperBound
        while index < rest.endIndex {
          let character = rest[index]
          if character == "(" {
            depth += 1
          } else if character == ")" {
            if depth == 0 { break }
            depth -= 1
          }
          index = rest.index(after: index)
        }
        found.append((name, String(rest[start.upperBound..<index])))
        rest = rest[index...]
      }
    }
    return found
  }

  @Test func everyErrorNamesItsThingInAWholeSentenceOnce() throws {
    let messages = try Self.errorMessages()
    #expect(messages.count >= 20, "\(messages.count) found")
    for (file, text) in messages {
      let message = text.hasSuffix("\"") ? String(text.dropLast()) : text
      // A value of its own: held by its type's tests.
      if message.hasPrefix("\\(") && message.hasSuffix(")") && !message.dropFirst(2).contains("\\(") { continue }
      #expect(!message.contains("Error:"), "\(file): \(message)")
      // The thing it happened to: a value put in, an option or command, or the program named.
      let namesThing = ["\\(", "--", "'gpsbridge", "chrony", "gpsd"].contains { message.contains($0) }
      #expect(namesThing, "\(file): \(message)")
      // A whole sentence, or a value that is one.
      #expect(message.hasSuffix(".") || message.hasSuffix(".)") || message.hasSuffix(")") || message.hasSuffix("\""), "\(file): \(message)")
    }
  }
}
