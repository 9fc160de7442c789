import GPSLocation
import Station

/// What the main command was asked to do.
struct RunOptions: Equatable {
  var source = SourceChoice.automatic
  var json = false
  var heading = false
  var regions: [Region] = []
  var regionFiles: [String] = []
  var visits = false
  /// Seconds a stay must last to be a visit (`--visit-dwell`), when not the engine's 5 minutes.
  var visitDwell: Double?
  var significantChanges = false
  var distanceFilter: Double?
  var desiredAccuracy: Double?
  var once = false
  /// Read gpsd through the system libgps (`--via libgps`, the `libgps` trait).
  var viaLibGPS = false
  /// RTK corrections for the receiver (`--ntrip`, `--ntrip-gga`).
  var corrections = CorrectionOptions()
  /// Actions out to an MQTT broker (`--mqtt`, `--mqtt-interval`).
  var mqtt = MQTTOptions()
  /// Region and visit events POSTed (`--webhook`).
  var webhooks = WebhookOptions()
  /// Where the regions' states are kept across runs (`--state-dir`); none by default, so a
  /// replay says the same every time.
  var stateDirectory: String?
}

extension RunOptions {
  /// The options as parsed, before the source options are checked.
  struct Draft {
    var options = RunOptions()
    var sources = SourceDraft()
  }

  static let spec = CommandSpec<Draft>(
    topic: .main,
    overview: "Read a GPS receiver and print location events.",
    discussion: """
      With no source, gpsbridge uses the first GPS receiver it finds, else gpsd on
      localhost if it answers. With neither, on a terminal it replays a bundled demo
      drive in real time (say so with --demo anywhere); piped or with --json it waits
      for a receiver to be plugged in, since a program reading its output must never
      get a location nobody measured.
      """,
    options: SourceDraft.options(replay: true).map { $0.lifted(\Draft.sources) } + [
      CommandOption(
        names: ["--via"], value: "<json|libgps>",
        help: "How --gpsd is read: gpsbridge's own client, or gpsd's libgps (needs a build with the libgps trait).", defaultValue: "json",
        section: "SOURCES"
      ) { draft, value throws(UsageError) in
        switch value {
        case "json": draft.options.viaLibGPS = false
        case "libgps":
          #if libgps
            draft.options.viaLibGPS = true
          #else
            throw UsageError(
              message: "--via libgps needs a build with the libgps trait: install libgps-dev, then swift build --traits libgps.")
          #endif
        default: throw UsageError(message: "--via takes 'json' or 'libgps'; got '\(value ?? "")'.")
        }
      }.attached(to: "--gpsd").completing(.words(["json", "libgps"])),
      .flag(
        "--json", \.options.json,
        help: "One JSON object per line, for other programs (the format: the documentation's \"Output format\", OutputFormat.md)."),
      .flag("--heading", \.options.heading, help: "Also report headings (course over ground, or HDT/THS)."),
      CommandOption(names: ["--region"], value: "<id,lat,lon,radius>", help: "Monitor a circular region (radius in metres). Repeatable.") {
        draft, value throws(UsageError) in
        draft.options.regions.append(try region(value ?? ""))
      }.repeating(),
      CommandOption(
        names: ["--regions"], value: "<file>",
        help: "Monitor the regions in a JSON file: an array of {\"identifier\", \"center\": {\"latitude\", \"longitude\"}, \"radius\"}."
      ) { draft, value in
        if let value { draft.options.regionFiles.append(value) }
      }.repeating(),
      CommandOption(
        names: ["--state-dir"], value: "<dir>",
        help:
          "Keep the regions' states (and, with --visits, the visit in progress) in this directory (regions.monitor.json), so that a restarted run neither repeats an entry or arrival nor loses an exit or departure that happened while it was down; region events then carry \"time\" and \"id\"."
      ) { draft, value in draft.options.stateDirectory = value },
      .flag("--visits", \.options.visits, help: "Report visits: stays of 5 minutes within 100 m."),
      CommandOption(
        names: ["--visit-dwell"], value: "<seconds>", help: "How long a stay must last to be a visit.", defaultValue: "300"
      ) { draft, value throws(UsageError) in
        guard let seconds = Double(value ?? ""), seconds > 0, seconds.isFinite else {
          throw UsageError(message: "--visit-dwell takes a number of seconds, like 300; got '\(value ?? "")'.")
        }
        draft.options.visitDwell = seconds
      }.attached(to: "--visits"),
      .flag("--significant-changes", \.options.significantChanges, help: "Report a location each time the position moves 500 m."),
      CommandOption(
        names: ["--distance-filter"], value: "<m>", help: "Report locations only this many metres apart.", defaultValue: "every fix"
      ) { draft, value throws(UsageError) in
        draft.options.distanceFilter = try metres("--distance-filter", value ?? "")
      },
      CommandOption(names: ["--desired-accuracy"], value: "<m>", help: "Report only locations at least this accurate.", defaultValue: "any")
      { draft, value throws(UsageError) in
        draft.options.desiredAccuracy = try metres("--desired-accuracy", value ?? "")
      },
      .flag("--once", \.options.once, help: "Print one location and exit; exit 1 if none comes in 10 s."),
    ] + CorrectionOptions.options(topic: .main).map { $0.lifted(\Draft.options.corrections) }
      + MQTTOptions.options(topic: .main).map { $0.lifted(\Draft.options.mqtt) }
      + WebhookOptions.options(topic: .main).map { $0.lifted(\Draft.options.webhooks) },
    examples: [
      "gpsbridge",
      "gpsbridge --device /dev/ttyACM0 --json | jq 'select(.locations) | .locations[0].latitude'",
      "gpsbridge --gpsd --once",
      "gpsbridge --replay drive.nmea --speed max --region home,47.3769,8.5417,100 --visits",
    ])

  static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var draft = Draft()
    guard try spec.parse(arguments, into: &draft) else { return .help(.main) }
    draft.options.source = try draft.sources.choice(topic: .main)
    if draft.options.viaLibGPS, case .gpsd = draft.options.source {
    } else if draft.options.viaLibGPS {
      throw UsageError(message: "--via libgps reads gpsd: give --gpsd [HOST[:PORT]] too.")
    }
    if draft.options.stateDirectory != nil {
      guard !draft.options.regions.isEmpty || !draft.options.regionFiles.isEmpty || draft.options.visits else {
        throw UsageError(message: "--state-dir keeps the states of regions and visits: give --regions FILE, --region or --visits too.")
      }
      guard !draft.options.once else {
        throw UsageError(message: "--once prints one location and no region events: leave out --state-dir.")
      }
      guard draft.options.stateDirectory != "" else {
        throw UsageError(message: "--state-dir takes a directory, like ~/.local/state/gpsbridge.")
      }
      // The regions' monitor dates its events by every fix, which --significant-changes would
      // then print too.
      guard !draft.options.significantChanges else {
        throw UsageError(message: "--state-dir and --significant-changes do not go together yet: the kept regions need every fix.")
      }
      // Nor may fixes be held back from the manager whose updates date them.
      for (option, given) in [("--distance-filter", draft.options.distanceFilter), ("--desired-accuracy", draft.options.desiredAccuracy)]
      where given != nil {
        throw UsageError(message: "--state-dir and \(option) do not go together yet: the kept regions and visits need every fix.")
      }
    }
    try draft.options.corrections.check(topic: .main)
    try draft.options.mqtt.check(topic: .main)
    if draft.options.corrections.ntrip != nil {
      switch draft.options.source {
      case .device, .automatic: break
      case .gpsd, .replay, .demo:
        throw UsageError(message: "--ntrip sends corrections to a receiver on a serial port, which can be written to: give --device PATH.")
      }
    }
    return .run(draft.options)
  }
}

func metres(_ option: String, _ text: String) throws(UsageError) -> Double {
  guard let value = Double(text), value >= 0, value.isFinite else {
    throw UsageError(message: "\(option) takes a distance in metres, like 10; got '\(text)'.")
  }
  return value
}

/// `ID,LAT,LON,RADIUS`.
func region(_ text: String) throws(UsageError) -> Region {
  let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
  guard parts.count == 4, !parts[0].isEmpty, let latitude = Double(parts[1]), let longitude = Double(parts[2]),
    let radius = Double(parts[3])
  else {
    throw UsageError(message: "--region takes ID,LAT,LON,RADIUS, like home,47.3769,8.5417,100; got '\(text)'.")
  }
  let region = Region(identifier: parts[0], center: LocationCoordinate2D(latitude: latitude, longitude: longitude), radius: radius)
  if let problem = region.problem() { throw UsageError(message: "--region '\(parts[0])': \(problem).") }
  return region
}
