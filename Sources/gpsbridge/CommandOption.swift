/// One command-line option, declared once: its spelling, its value, its default, its help, and
/// what it sets. The parser and the help text are both made from these.
struct CommandOption<Draft>: Sendable {
  /// `["-o", "--output"]`: the short form first.
  var names: [String]
  /// The value's placeholder (`<path>`), or `nil` for a flag.
  var value: String?
  /// Whether the value may be left out (`--gpsd [<host[:port]>]`): then the next argument is
  /// taken only if it does not start with `-`.
  var valueIsOptional = false
  var help: String
  /// Shown as `(default: …)` at the end of the help.
  var defaultValue: String?
  /// The help section: `SOURCES` or `OPTIONS`.
  var section = "OPTIONS"
  /// Where it appears in the synopsis (see ``SynopsisRole``).
  var role = SynopsisRole()
  /// What a shell offers for its value, when not inferred (see ``valueCompletion``).
  var completion: ValueCompletion? = nil
  /// Applies the option (and its value) to the draft being parsed.
  var apply: @Sendable (inout Draft, String?) throws(UsageError) -> Void

  /// A flag that sets a Boolean.
  static func flag(_ name: String, _ keyPath: WritableKeyPath<Draft, Bool> & Sendable, help: String) -> CommandOption {
    CommandOption(names: [name], value: nil, help: help) { draft, _ in draft[keyPath: keyPath] = true }
  }

  /// The same option on a larger draft that holds this one at `keyPath` (shared source options).
  func lifted<Outer>(_ keyPath: WritableKeyPath<Outer, Draft> & Sendable) -> CommandOption<Outer> {
    let apply = self.apply
    return CommandOption<Outer>(
      names: names, value: value, valueIsOptional: valueIsOptional, help: help, defaultValue: defaultValue,
      section: section, role: role, completion: completion
    ) { outer, text throws(UsageError) in try apply(&outer[keyPath: keyPath], text) }
  }
}

/// A command's options, its positional arguments and its help, declared in one place.
struct CommandSpec<Draft>: Sendable {
  var topic: HelpTopic
  var overview: String
  var discussion: String? = nil
  /// The positional arguments in the synopsis, `<file>` or `[<path>...]`; the rest of the
  /// synopsis is made from `options` (see ``synopsis(width:lead:)``).
  var positionalSynopsis: String? = nil
  /// Positional arguments and their help, for the `ARGUMENTS` section.
  var arguments: [(name: String, help: String)] = []
  var options: [CommandOption<Draft>]
  var examples: [String] = []
  /// Takes a positional argument; `nil` when the command takes none.
  var positional: (@Sendable (inout Draft, String) throws(UsageError) -> Void)? = nil

  /// gpsd's own options that users of gpsd type, and what stands for them here.
  static var gpsdsOptions: [String: (option: String, hint: @Sendable (String) -> String)] {
    let listen: @Sendable (String) -> String = { "gpsd's -S/--port is \($0) ADDRESS:PORT here, like \($0) 127.0.0.1:2948." }
    return ["--port": ("--listen", listen), "-S": ("--listen", listen)]
  }

  /// Parses `arguments` into `draft`. Returns `false` when help was asked for instead.
  func parse(_ arguments: ArraySlice<String>, into draft: inout Draft) throws(UsageError) -> Bool {
    var rest = arguments
    while let argument = rest.popFirst() {
      if argument == "-h" || argument == "--help" { return false }
      guard let option = options.first(where: { $0.names.contains(argument) }) else {
        if argument.hasPrefix("-"), argument != "-" {
          let name = String(argument.prefix { $0 != "=" })
          var message = "Unknown option '\(argument)'\(topic == .main ? "" : " for '\(topic.rawValue)'")."
          if name != argument, options.contains(where: { $0.names.contains(name) }) {
            message += " Give its value after a space: \(name) \(argument.dropFirst(name.count + 1))."
          } else if let gpsdWay = Self.gpsdsOptions[name], let meant = options.first(where: { $0.names.contains(gpsdWay.option) }) {
            message += " " + gpsdWay.hint(meant.names.last ?? gpsdWay.option)
          } else if let meant = Suggestion.closest(to: name, among: options.flatMap(\.names) + ["--help"]) {
            message += " Did you mean '\(meant)'?"
          }
          throw UsageError(message: message, topic: topic)
        }
        guard let positional else { throw unexpected(argument) }
        try positional(&draft, argument)
        continue
      }
      var value: String?
      if option.value != nil {
        if option.valueIsOptional {
          if let next = rest.first, !next.hasPrefix("-") { value = rest.popFirst() }
        } else {
          guard let next = rest.popFirst(), !next.hasPrefix("--") else {
            throw UsageError(message: "\(argument) needs a value.", topic: topic)
          }
          value = next
        }
      }
      try option.apply(&draft, value)
    }
    return true
  }

  /// The error for a word that is no option: on the main command, most likely a mistyped
  /// subcommand, or a capture given without `--replay`.
  func unexpected(_ argument: String) -> UsageError {
    guard topic == .main else { return UsageError(message: "'\(topic.rawValue)' takes no argument '\(argument)'.", topic: topic) }
    let commands = HelpTopic.subcommands.map(\.rawValue) + ["help"]
    let looksLikeAFile = argument.contains("/") || argument.contains(".")
    if !looksLikeAFile, let meant = Suggestion.closest(to: argument, among: commands) {
      return UsageError(message: "Unknown command '\(argument)'. Did you mean '\(meant)'?")
    }
    if looksLikeAFile {
      return UsageError(message: "Unexpected argument '\(argument)'. To replay a capture, use --replay \(argument).")
    }
    return UsageError(
      message:
        "Unknown command '\(argument)'. The commands are \(commands.joined(separator: ", ")); to replay a capture, use --replay \(argument)."
    )
  }
}
