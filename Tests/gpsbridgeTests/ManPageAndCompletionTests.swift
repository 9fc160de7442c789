import Foundation
import TestHelpers
import Testing

@testable import gpsbridge

/// The manual pages and the shell completions are made from the option tables `--help` is
/// made from: every option is in them, `man` renders the pages without a warning, and bash
/// offers what a user expects at a <TAB>.
@Suite struct ManPageAndCompletionTests {
  static let man = ["/usr/bin/man"].first { FileManager.default.isExecutableFile(atPath: $0) }

  /// Runs `script` with `bash -c` (or another shell), giving what it printed.
  static func shell(_ program: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ProgramOutput {
    try await runProgram(URL(fileURLWithPath: program), arguments, timeout: 30)
  }

  @Test(
    .enabled(if: man != nil, "man is not installed (Debian: man-db)"),
    arguments: HelpTopic.allCases)
  func everyPageRendersWithoutAWarningAndHoldsEveryOption(_ topic: HelpTopic) async throws {
    let page = scratchDirectory("man-\(topic.rawValue)-\(UUID().uuidString.prefix(8))").appendingPathComponent("\(ManPage.name(topic)).1")
    let made = try await Program.run(["help", "--man"] + (topic == .main ? [] : [topic.rawValue]))
    #expect(made.status == 0)
    try Data(made.output.utf8).write(to: page)
    let rendered = try await Self.shell(
      "/usr/bin/env", ["LC_ALL=C.UTF-8", "MANWIDTH=80", "MAN_KEEP_FORMATTING=0", Self.man!, "--warnings", "-E", "UTF-8", "-l", page.path])
    #expect(rendered.status == 0)
    #expect(rendered.error.isEmpty, "man's warnings: \(rendered.error)")
    // Words broken at the end of a line are joined again before looking for them.
    // (Bold and underline come as overstrikes, a character, a backspace and another.)
    var plain = ""
    for character in rendered.output {
      if character == "\u{8}" { _ = plain.popLast() } else { plain.append(character) }
    }
    let text = plain.replacingOccurrences(of: "‐\n", with: "").replacingOccurrences(of: "\u{2010}", with: "-")
    for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "FILES", "SEE ALSO"] {
      #expect(text.contains("\n" + section + "\n"), "\(topic): no \(section)")
    }
    if !Help.page(topic).examples.isEmpty { #expect(text.contains("\nEXAMPLES\n")) }
    for option in Help.spec(topic, { $0.optionSummaries }) {
      #expect(text.contains("       " + option.names.joined(separator: ", ")), "\(topic): \(option.names)")
    }
  }

  /// What bash's completion offers with the words typed so far (the last one is being typed).
  static func bashOffers(_ words: [String]) async throws -> [String] {
    let script = try await Program.run(["completion", "bash"]).output
    let directory = scratchDirectory("completion-\(UUID().uuidString.prefix(8))")
    let file = directory.appendingPathComponent("gpsbridge.bash")
    try Data(script.utf8).write(to: file)
    let quoted = words.map { "'\($0)'" }.joined(separator: " ")
    let result = try await shell(
      "/bin/bash",
      [
        "-i", "-c",
        "source '\(file.path)' && complete -p gpsbridge && COMP_WORDS=(\(quoted)) && COMP_CWORD=\(words.count - 1) && _gpsbridge && printf '%s\\n' \"${COMPREPLY[@]}\"",
      ])
    #expect(result.status == 0, "\(result.error)")
    let lines = result.output.split(separator: "\n").map(String.init)
    #expect(lines.first == "complete -F _gpsbridge gpsbridge", "\(result.output)")
    return Array(lines.dropFirst())
  }

  @Test func bashCompletesASubcommandFromItsFirstLetters() async throws {
    #expect(try await Self.bashOffers(["gpsbridge", "se"]) == ["serve"])
    #expect(try await Self.bashOffers(["gpsbridge", "c"]).sorted() == ["check", "completion", "configure"])
  }

  @Test func bashOffersTheProfilesAfterProfile() async throws {
    #expect(
      try await Self.bashOffers(["gpsbridge", "simulate", "--profile", ""]) == ["ublox", "ublox8", "mtk", "sirf", "gga", "marine", "rtk"])
    #expect(try await Self.bashOffers(["gpsbridge", "simulate", "--profile", "m"]) == ["mtk", "marine"])
  }

  @Test func bashOffersACommandsOwnOptions() async throws {
    #expect(try await Self.bashOffers(["gpsbridge", "serve", "--l"]).sorted() == ["--listen", "--loop"])
    #expect(try await Self.bashOffers(["gpsbridge", "--re"]).sorted() == ["--region", "--regions", "--replay"])
    #expect(try await Self.bashOffers(["gpsbridge", "record", "--baud", "11"]) == ["115200"])
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh"), "zsh is not installed (Debian: zsh)"))
  func theZshScriptIsValidZsh() async throws {
    let script = try await Program.run(["completion", "zsh"]).output
    #expect(script.hasPrefix("#compdef gpsbridge\n"))
    // Each option with its help in brackets, as zsh shows it beside the option.
    #expect(script.contains("'--device[A serial receiver]:path:_gpsbridge_devices'"), "\(script)")
    let file = scratchDirectory("zsh-\(UUID().uuidString.prefix(8))").appendingPathComponent("_gpsbridge")
    try Data(script.utf8).write(to: file)
    let checked = try await Self.shell("/usr/bin/zsh", ["-n", file.path])
    #expect(checked.status == 0, "\(checked.error)")
  }

  @Test func aShellThatIsNotKnownIsAUsageError() async throws {
    let result = try await Program.run(["completion", "fish"])
    #expect(result.status == 64)
    #expect(result.error.hasPrefix("Error: completion takes bash or zsh; got 'fish'."))
  }
}
