/// Help texts, laid out as swift-argument-parser lays them out and made from the same option
/// tables the parser reads, so the two cannot disagree.
enum Help {
  /// The synopsis of `topic`, for usage errors.
  static func usage(_ topic: HelpTopic) -> String { page(topic).usage.joined(separator: "\n") }

  /// Every command's synopsis, as the README's "Command line" section shows them.
  static var synopses: [String] {
    HelpTopic.allCases.flatMap { topic in spec(topic) { $0.synopsis(width: 100, lead: 0) } }
  }

  /// Applies `body` to the option table of `topic`, whatever its draft type.
  static func spec<Result>(_ topic: HelpTopic, _ body: (any SynopsisSource) -> Result) -> Result {
    switch topic {
    case .main: body(RunOptions.spec)
    case .devices: body(DevicesOptions.spec)
    case .record: body(RecordOptions.spec)
    case .serve: body(ServeOptions.spec)
    case .configure: body(ConfigureOptions.spec)
    case .check: body(CheckOptions.spec)
    case .simulate: body(SimulateOptions.spec)
    case .time: body(TimeOptions.spec)
    case .ntrip: body(NtripOptions.spec)
    case .completion: body(CompletionOptions.spec)
    }
  }

  /// The whole help of `topic`.
  static func text(_ topic: HelpTopic) -> String { page(topic).rendered }

  static func page(_ topic: HelpTopic) -> HelpPage {
    var page = spec(topic) { $0.page }
    if topic == .main {
      page.extraUsage = ["gpsbridge <subcommand> [<options>]"]
      page.subcommands = HelpTopic.subcommands.map { ($0.rawValue, Help.page($0).overview) }
      page.exitStatus = "0 success (or a replay that reached its end), 1 a runtime failure, 64 a usage error."
    }
    return page
  }
}

/// One help text, section by section.
struct HelpPage {
  var overview: String
  var discussion: String?
  /// The synopsis lines, the later ones indented to follow `USAGE: `.
  var usage: [String]
  var extraUsage: [String] = []
  var arguments: [(String, String)]
  /// (section, left column, help), in table order.
  var rows: [(String, String, String)]
  var subcommands: [(String, String)] = []
  var examples: [String]
  var exitStatus: String?

  static let width = 80
  static let indent = 2
  static let column = 26

  var rendered: String {
    var lines = ["OVERVIEW: " + overview]
    if let discussion { lines += [""] + Self.wrap(discussion.replacingNewlines(), width: Self.width) }
    lines += ["", "USAGE: " + usage[0]] + usage.dropFirst() + extraUsage.map { "       " + $0 }
    if !arguments.isEmpty {
      lines += ["", "ARGUMENTS:"] + arguments.flatMap { Self.row($0.0, $0.1) }
    }
    var sections: [String] = []
    for (section, _, _) in rows where !sections.contains(section) { sections.append(section) }
    for section in sections {
      lines += ["", section + ":"] + rows.filter { $0.0 == section }.flatMap { Self.row($0.1, $0.2) }
    }
    if !subcommands.isEmpty {
      lines += ["", "SUBCOMMANDS:"] + subcommands.flatMap { Self.row($0.0, $0.1) }
      lines += [
        "", "  See 'gpsbridge help <subcommand>' for detailed help, and the manual pages:",
        "  'man gpsbridge-<subcommand>' once installed, or 'gpsbridge help --man <name>'.",
      ]
    }
    if !examples.isEmpty { lines += ["", "EXAMPLES:"] + examples.map { "  " + $0 } }
    if let exitStatus { lines += ["", "EXIT STATUS:"] + Self.wrap(exitStatus, width: Self.width - Self.indent).map { "  " + $0 } }
    return lines.joined(separator: "\n")
  }

  /// `left` in the first column and `help` wrapped in the second; a long `left` gets a line
  /// of its own.
  static func row(_ left: String, _ help: String) -> [String] {
    let wrapped = wrap(help, width: width - column)
    let lead = String(repeating: " ", count: indent) + left
    var lines: [String] = []
    if lead.count <= column - 2 {
      lines.append(lead + String(repeating: " ", count: column - lead.count) + (wrapped.first ?? ""))
    } else {
      lines.append(lead)
      lines.append(String(repeating: " ", count: column) + (wrapped.first ?? ""))
    }
    for line in wrapped.dropFirst() { lines.append(String(repeating: " ", count: column) + line) }
    return lines
  }

  static func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ") {
      if !current.isEmpty, current.count + 1 + word.count > width {
        lines.append(current)
        current = ""
      }
      current += (current.isEmpty ? "" : " ") + word
    }
    if !current.isEmpty { lines.append(current) }
    return lines
  }
}

/// A command's option table, whatever its draft: what the synopsis, the man page and the
/// completions are made from.
protocol SynopsisSource {
  var topic: HelpTopic { get }
  var page: HelpPage { get }
  var overview: String { get }
  func synopsis(width: Int, lead: Int) -> [String]
  var optionSummaries: [OptionSummary] { get }
  var takesPositionalFiles: Bool { get }
}

extension CommandSpec: SynopsisSource {}

extension CommandSpec {
  var page: HelpPage {
    var rows: [(String, String, String)] = options.map { option in
      let left =
        option.names.joined(separator: ", ")
        + (option.value.map { option.valueIsOptional ? " [\($0)]" : " \($0)" } ?? "")
      let help = option.help + (option.defaultValue.map { " (default: \($0))" } ?? "")
      return (option.section, left, help)
    }
    rows.append(("OPTIONS", "-h, --help", "Show help information."))
    if topic == .main { rows.insert(("OPTIONS", "--version", "Show the version."), at: rows.count - 1) }
    return HelpPage(
      overview: overview, discussion: discussion, usage: synopsis(lead: 7), arguments: arguments, rows: rows, examples: examples)
  }
}

extension String {
  /// The text as one paragraph: line breaks become spaces.
  func replacingNewlines() -> String {
    split(separator: "\n").joined(separator: " ")
  }
}
