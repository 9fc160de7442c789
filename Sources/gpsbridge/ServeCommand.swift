import GPSD

/// What `gpsbridge serve` was asked to do.
struct ServeOptions: Equatable {
  var source = SourceChoice.automatic
  var listen = GPSDAddress.standard

  struct Draft {
    var sources = SourceDraft()
    var listen: GPSDAddress?
  }

  static let spec = CommandSpec<Draft>(
    topic: .serve,
    overview: "Serve a receiver to gpsd's clients (cgps, gpspipe, libgps programs).",
    discussion: """
      Speaks gpsd's JSON protocol, so programs written for gpsd read this receiver as
      if gpsd were running, while Swift programs use the LocationManager. With no
      source it serves the first receiver found, else the demo drive. Listening beyond
      127.0.0.1 shares your location with the network: only when --listen names such an
      address.
      """,
    usage:
      "gpsbridge serve [--device <path> [--baud <rate>] | --replay <file> [--speed <n|max>] | --gpsd <host[:port]>] [--listen <address[:port]>]",
    options: SourceDraft.options(replay: true, gpsdHelp: "Serve another gpsd's fixes again.").map { $0.lifted(\Draft.sources) } + [
      CommandOption(
        names: ["--listen"], value: "<address[:port]>", help: "Where gpsd's clients connect.",
        defaultValue: GPSDAddress.standard.description
      ) { draft, value throws(UsageError) in
        guard let value, let address = GPSDAddress(parsing: value) else {
          throw UsageError(
            message: "--listen takes ADDRESS[:PORT], like 127.0.0.1:2947 (IPv6 in brackets); got '\(value ?? "")'.", topic: .serve)
        }
        draft.listen = address
      }
    ],
    examples: [
      "gpsbridge serve",
      "gpsbridge serve --device /dev/ttyACM0",
      "gpsbridge serve --replay drive.nmea --listen 127.0.0.1:2948 & gpspipe -w -n 10 127.0.0.1:2948",
    ])

  static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var draft = Draft()
    guard try spec.parse(arguments, into: &draft) else { return .help(.serve) }
    return .serve(ServeOptions(source: try draft.sources.choice(topic: .serve), listen: draft.listen ?? .standard))
  }
}
