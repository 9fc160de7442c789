/// What `gpsbridge` was asked to do: the result of ``parse(_:)``, a pure function.
enum Command: Equatable {
  case run(RunOptions)
  case devices(DevicesOptions)
  case record(RecordOptions)
  case serve(ServeOptions)
  case configure(ConfigureOptions)
  case check(CheckOptions)
  case simulate(SimulateOptions)
  case time(TimeOptions)
  case ntrip(NtripOptions)
  case completion(CompletionOptions)
  case help(HelpTopic)
  /// The manual page of a command, as roff (`help --man`).
  case manual(HelpTopic)
  case version
}

/// Parses the arguments after the program name.
func parse(_ arguments: [String]) throws(UsageError) -> Command {
  let rest = arguments.dropFirst()
  switch arguments.first {
  case "devices": return try DevicesOptions.parse(rest)
  case "check": return try CheckOptions.parse(rest)
  case "record": return try RecordOptions.parse(rest)
  case "serve": return try ServeOptions.parse(rest)
  case "configure": return try ConfigureOptions.parse(rest)
  case "simulate": return try SimulateOptions.parse(rest)
  case "completion": return try CompletionOptions.parse(rest)
  case "time": return try TimeOptions.parse(rest)
  case "ntrip": return try NtripOptions.parse(rest)
  case "help":
    if rest.first == "--man" {
      guard let name = rest.dropFirst().first else { return .manual(.main) }
      guard let topic = HelpTopic(rawValue: name), topic != .main else {
        throw UsageError(message: "No manual page for '\(name)'.")
      }
      return .manual(topic)
    }
    guard let name = rest.first else { return .help(.main) }
    guard let topic = HelpTopic(rawValue: name), topic != .main else {
      let names = HelpTopic.subcommands.map(\.rawValue)
      let meant = Suggestion.closest(to: name, among: names).map { " Did you mean '\($0)'?" } ?? ""
      throw UsageError(message: "No help for '\(name)'.\(meant) The commands are \(names.joined(separator: ", ")).")
    }
    return .help(topic)
  case "--version":
    return .version
  default:
    return try RunOptions.parse(arguments[...])
  }
}

extension HelpTopic {
  /// The subcommands, in the order the help lists them.
  static var subcommands: [HelpTopic] { allCases.filter { $0 != .main } }
}
