/// What `gpsbridge record` was asked to do.
struct RecordOptions: Equatable {
  var source = LiveSourceChoice.automatic
  var output = ""
  var duration: Double?

  struct Draft {
    var sources = SourceDraft()
    var output: String?
    var duration: Double?
  }

  static let spec = CommandSpec<Draft>(
    topic: .record,
    overview: "Record a live source's raw bytes to a capture file.",
    discussion: """
      The file starts with '# Date:' and '# Device:' comments and then holds exactly what
      the receiver sent, so 'gpsbridge --replay' and the test fixtures can use it. Stops
      on Ctrl-C, SIGTERM, or after --duration, leaving a complete file.
      """,
    options: SourceDraft.options(replay: false, gpsdHelp: "Record gpsd's NMEA output.").map { $0.lifted(\Draft.sources) }.map {
      $0.role.group == nil ? $0 : $0.required()
    } + [
      CommandOption(names: ["-o", "--output"], value: "<file>", help: "Where to write the capture ('-' for standard output).") {
        draft, value in
        draft.output = value
      }.required(),
      CommandOption(names: ["--duration"], value: "<seconds>", help: "Stop after this long.", defaultValue: "until interrupted") {
        draft, value throws(UsageError) in
        guard let value, let seconds = Double(value), seconds > 0, seconds.isFinite else {
          throw UsageError(message: "--duration takes a number of seconds, like 60; got '\(value ?? "")'.", topic: .record)
        }
        draft.duration = seconds
      },
    ],
    examples: ["gpsbridge record --device /dev/ttyUSB0 --output drive.nmea --duration 600"])

  static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var draft = Draft()
    guard try spec.parse(arguments, into: &draft) else { return .help(.record) }
    let source = try draft.sources.liveChoice(topic: .record)
    guard let output = draft.output else {
      throw UsageError(message: "Missing --output FILE: where to write the capture.", topic: .record)
    }
    return .record(RecordOptions(source: source, output: output, duration: draft.duration))
  }
}
