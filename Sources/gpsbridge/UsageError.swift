/// A mistake in the command line: exit status 64 (EX_USAGE), with the usage of the part that
/// was being parsed.
struct UsageError: Error, Equatable {
  var message: String
  var topic: HelpTopic = .main
}

/// What `gpsbridge help <topic>` explains: the main command or a subcommand.
enum HelpTopic: String, Equatable, CaseIterable {
  case main, devices, record, serve, configure, check, simulate, time, ntrip, completion
}
