/// What `gpsbridge check` was asked to do.
struct CheckOptions: Equatable {
  var path = ""
  var json = false

  struct Draft {
    var path: String?
    var json = false
  }

  static let spec = CommandSpec<Draft>(
    topic: .check,
    overview: "Summarize a capture file.",
    discussion: """
      Counts sentences by type and talker, checksum failures and other rejects, fixes
      with and without a position, the time span and the fix rate.
      """,
    positionalSynopsis: "<file>",
    arguments: [("<file>", "The capture to check; '-' reads standard input.")],
    options: [.flag("--json", \.json, help: "The summary as one JSON object.")],
    examples: ["gpsbridge check drive.nmea"],
    positional: { draft, path throws(UsageError) in
      guard draft.path == nil else { throw UsageError(message: "'check' takes one file; '\(path)' is one too many.", topic: .check) }
      draft.path = path
    })

  static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var draft = Draft()
    guard try spec.parse(arguments, into: &draft) else { return .help(.check) }
    guard let path = draft.path else { throw UsageError(message: "Missing the capture file to check.", topic: .check) }
    return .check(CheckOptions(path: path, json: draft.json))
  }
}
