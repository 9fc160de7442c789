import GPSLocation
import ReceiverSetup

/// What `gpsbridge configure` was asked to do.
struct ConfigureOptions: Equatable {
  var device = ""
  var change = ReceiverSettings()
  var save = false
  var show = false
  var dryRun = false
  var json = false

  static let spec = CommandSpec<ConfigureOptions>(
    topic: .configure,
    overview: "Change a receiver's settings safely, or show them.",
    discussion: """
      The change is a transaction: gpsbridge identifies the receiver, refuses what it or
      its link cannot take, notes the settings it will touch, applies the change in the
      receiver's RAM only, checks it twice (read back, and by what the receiver then
      sends), and keeps it. On any failure, and on Ctrl-C, the settings are put back as
      they were. --save then writes the change to battery-backed RAM and flash; without
      it the receiver forgets the change when powered off. Nothing else in gpsbridge ever
      writes to a receiver. It sets up u-blox receivers of generation 9 and 10
      (CFG-VALSET) and M8 and older (CFG-PRT, CFG-RATE, CFG-MSG…), MediaTek receivers
      (PMTK: rate, baud, sentences, constellations) and SiRF receivers in NMEA mode
      (PSRF: baud, sentences); what a receiver cannot take is refused with the reason
      before anything is written. Try it on 'gpsbridge simulate --pty PATH --live
      --profile ublox|ublox8|mtk|sirf'.
      """,
    options: [
      CommandOption(names: ["--device"], value: "<path>", help: "The receiver's serial device.") { options, value in
        options.device = value ?? ""
      }.required().completing(.devices),
      CommandOption(names: ["--rate"], value: "<hz>", help: "Navigation epochs a second, 1 to 25.") { options, value throws(UsageError) in
        guard let value, let rate = Int(value), ReceiverSettings.rates.contains(rate) else {
          throw UsageError(
            message: "--rate takes a whole number of epochs a second from 1 to 25, like 5; got '\(value ?? "")'.", topic: .configure)
        }
        options.change.rate = rate
      },
      CommandOption(
        names: ["--baud"], value: "<rate>",
        help:
          "The receiver's baud rate: switched, then checked by asking it at the new rate; when it does not answer there, the old rate is used again."
      ) { options, value throws(UsageError) in
        guard let value, let baud = Int(value), BaudRate.candidates.contains(baud) else {
          throw UsageError(
            message:
              "--baud takes one of \(BaudRate.candidates.sorted().map(String.init).joined(separator: ", ")); got '\(value ?? "")'.",
            topic: .configure)
        }
        options.change.baudRate = baud
      }.completing(.words(BaudRate.candidates.sorted().map(String.init))),
      CommandOption(
        names: ["--sentences"], value: "<list>",
        help: "The NMEA sentences to send, the rest off: " + NMEASentenceType.allCases.map(\.rawValue).joined(separator: ",") + "."
      ) { options, value throws(UsageError) in
        options.change.sentences = try Self.list(value, of: NMEASentenceType.self, option: "--sentences") { $0.uppercased() }
      },
      CommandOption(
        names: ["--constellations"], value: "<list>",
        help: "The satellite systems to track: " + SatelliteSystem.allCases.map(\.rawValue).joined(separator: ",") + "."
      ) { options, value throws(UsageError) in
        options.change.constellations = try Self.list(value, of: SatelliteSystem.self, option: "--constellations") { $0.lowercased() }
      },
      CommandOption(
        names: ["--dynamic-model"], value: "<model>",
        help: "How the receiver moves: " + DynamicModel.allCases.map(\.rawValue).joined(separator: ", ") + "."
      ) { options, value throws(UsageError) in
        guard let value, let model = DynamicModel(rawValue: value.lowercased()) else {
          throw UsageError(
            message: "--dynamic-model takes one of \(DynamicModel.allCases.map(\.rawValue).joined(separator: ", ")); got '\(value ?? "")'.",
            topic: .configure)
        }
        if let set = options.change.dynamicModel, set != model {
          throw UsageError(
            message: "--dynamic-model \(model.rawValue) and --for (\(set.rawValue)) say different models: give one of them.",
            topic: .configure)
        }
        options.change.dynamicModel = model
      }.completing(.words(DynamicModel.allCases.map(\.rawValue))),
      CommandOption(
        names: ["--for"], value: "<activity>",
        help: "Set the dynamic model that suits a live-updates configuration: "
          + ActivityType.allCases.map { "\($0.rawValue) (\(DynamicModel($0).rawValue))" }.joined(separator: ", ") + "."
      ) { options, value throws(UsageError) in
        guard let value, let activity = ActivityType.allCases.first(where: { $0.rawValue.lowercased() == value.lowercased() }) else {
          throw UsageError(
            message: "--for takes one of \(ActivityType.allCases.map(\.rawValue).joined(separator: ", ")); got '\(value ?? "")'.",
            topic: .configure)
        }
        if let model = options.change.dynamicModel, model != DynamicModel(activity) {
          let wanted = DynamicModel(activity).rawValue
          throw UsageError(
            message:
              "--for \(activity.rawValue) sets the dynamic model \(wanted), and --dynamic-model says \(model.rawValue): give one of them.",
            topic: .configure)
        }
        options.change.dynamicModel = DynamicModel(activity)
      }.completing(.words(ActivityType.allCases.map(\.rawValue))),
      CommandOption(
        names: ["--time-pulse"], value: "<period,width>", help: "The time pulse's period and width in microseconds, like 1000000,100000."
      ) { options, value throws(UsageError) in
        let parts = (value ?? "").split(separator: ",").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0, parts[1] < parts[0] else {
          throw UsageError(
            message:
              "--time-pulse takes PERIOD,WIDTH in microseconds, the width shorter than the period, like 1000000,100000; got '\(value ?? "")'.",
            topic: .configure)
        }
        options.change.timePulse = TimePulse(period: parts[0], width: parts[1])
      },
      CommandOption(
        names: ["--output-protocol"], value: "<protocol>", help: "What the receiver sends: nmea, ubx or both."
      ) { options, value throws(UsageError) in
        guard let value, let output = OutputProtocol(rawValue: value.lowercased()) else {
          throw UsageError(message: "--output-protocol takes nmea, ubx or both; got '\(value ?? "")'.", topic: .configure)
        }
        options.change.outputProtocol = output
      }.completing(.words(["nmea", "ubx", "both"])),
      CommandOption(
        names: ["--integrity"], value: "<on|off>",
        help:
          "A u-blox's interference monitor and the messages that say what it and its spoofing detector see (MON-RF, NAV-STATUS, SEC-SIG; an M8's MON-HW, NAV-STATUS), in RAM only; a part the firmware refuses is said, the rest set."
      ) { options, value throws(UsageError) in
        switch value?.lowercased() {
        case "on": options.change.integrity = true
        case "off": options.change.integrity = false
        default: throw UsageError(message: "--integrity takes on or off; got '\(value ?? "")'.", topic: .configure)
        }
      }.completing(.words(["on", "off"])),
      CommandOption(names: ["--save"], help: "Keep the change across power cycles (battery-backed RAM and flash).") { options, _ in
        options.save = true
      },
      CommandOption(names: ["--show"], help: "Print the receiver's settings, changing nothing.") { options, _ in options.show = true },
      CommandOption(names: ["--dry-run"], help: "Identify, check and say what would change, writing nothing.") { options, _ in
        options.dryRun = true
      },
      CommandOption(names: ["--json"], help: "Print the settings, or the outcome, as one JSON object.") { options, _ in options.json = true
      },
    ],
    examples: [
      "gpsbridge configure --device /dev/ttyACM0 --show",
      "gpsbridge configure --device /dev/ttyACM0 --rate 5 --sentences GGA,RMC,GSA",
      "gpsbridge configure --device /dev/ttyACM0 --constellations gps,galileo --dynamic-model automotive --save",
      "gpsbridge configure --device /dev/ttyACM0 --for fitness",
    ])

  /// A comma-separated list of `Value`s; the usage error names the ones it takes.
  static func list<Value: RawRepresentable & CaseIterable & Hashable>(
    _ text: String?, of: Value.Type, option: String, normalize: (String) -> String
  ) throws(UsageError) -> Set<Value> where Value.RawValue == String {
    var values: Set<Value> = []
    for name in (text ?? "").split(separator: ",") {
      guard let value = Value(rawValue: normalize(String(name))) else {
        throw UsageError(
          message: "\(option) takes a list of \(Value.allCases.map(\.rawValue).joined(separator: ",")); '\(name)' is none of them.",
          topic: .configure)
      }
      values.insert(value)
    }
    guard !values.isEmpty else {
      throw UsageError(
        message: "\(option) takes a comma-separated list, like \(Value.allCases.prefix(2).map(\.rawValue).joined(separator: ",")).",
        topic: .configure)
    }
    return values
  }

  static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var options = ConfigureOptions()
    guard try spec.parse(arguments, into: &options) else { return .help(.configure) }
    guard !options.device.isEmpty else {
      throw UsageError(message: "Missing --device PATH: the receiver to set up ('gpsbridge devices' lists them).", topic: .configure)
    }
    if options.show, !options.change.isEmpty {
      throw UsageError(message: "--show changes nothing: give it alone, or the changes without it.", topic: .configure)
    }
    if !options.show, options.change.isEmpty {
      throw UsageError(
        message: "Nothing to change: give --rate, --sentences, --constellations… (or --show to see the settings).", topic: .configure)
    }
    if options.save, options.dryRun {
      throw UsageError(message: "--dry-run writes nothing, so --save cannot go with it.", topic: .configure)
    }
    return .configure(options)
  }
}
