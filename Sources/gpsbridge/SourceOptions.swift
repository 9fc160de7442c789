import GPSD
import GPSLocation
import Station

/// A source that is not a recording: what `record` can record.
enum LiveSourceChoice: Equatable {
  /// The first receiver found.
  case automatic
  case device(path: String, baud: BaudRate)
  case gpsd(GPSDAddress)
}

/// The source options as given, before they are checked to make one ``SourceChoice``.
struct SourceDraft: Equatable {
  var device: String?
  /// Further `--device` options, which only `serve` takes (several receivers at once).
  var moreDevices: [String] = []
  var baud: BaudRate?
  var gpsd: GPSDAddress?
  var replay: String?
  var speed: ReplaySpeed?
  var demo = false

  /// The source options; `replay` adds `--replay` and `--speed`.
  static func options(replay: Bool, gpsdHelp: String = "A running gpsd.") -> [CommandOption<SourceDraft>] {
    var options: [CommandOption<SourceDraft>] = [
      CommandOption(
        names: ["--device"], value: "<path>",
        help: "A serial receiver: /dev/ttyUSB0, /dev/ttyACM0, /dev/serial/by-id/…, or a udev link such as /dev/gps0.",
        section: "SOURCES"
      ) { draft, value in
        if draft.device == nil { draft.device = value } else if let value { draft.moreDevices.append(value) }
      }.inGroup("source").completing(.devices),
      CommandOption(
        names: ["--baud"], value: "<rate|auto>", help: "The receiver's baud rate, or auto to find it.", defaultValue: "auto",
        section: "SOURCES"
      ) { draft, value throws(UsageError) in
        guard let value, let rate = BaudRate(value) else {
          throw UsageError(
            message:
              "--baud takes 'auto' or one of \(BaudRate.candidates.sorted().map(String.init).joined(separator: ", ")); got '\(value ?? "")'."
          )
        }
        draft.baud = rate
      }.attached(to: "--device").completing(.words(["auto"] + BaudRate.candidates.sorted().map(String.init))),
      CommandOption(
        names: ["--gpsd"], value: "<host[:port]>", valueIsOptional: true, help: gpsdHelp,
        defaultValue: GPSDAddress.standard.description, section: "SOURCES"
      ) { draft, value throws(UsageError) in
        guard let value else {
          draft.gpsd = .standard
          return
        }
        guard let address = GPSDAddress(parsing: value) else {
          throw UsageError(message: "--gpsd takes HOST[:PORT] (IPv6 in brackets, a port of 1–65535); got '\(value)'.")
        }
        draft.gpsd = address
      }.inGroup("source"),
    ]
    if replay {
      options += [
        CommandOption(
          names: ["--replay"], value: "<file>", help: "A capture to replay; '-' reads standard input.", section: "SOURCES"
        ) { draft, value in draft.replay = value }.inGroup("source"),
        CommandOption(
          names: ["--speed"], value: "<n|max>", help: "Replay speed: a multiple of real time, or max.", defaultValue: "1",
          section: "SOURCES"
        ) { draft, value throws(UsageError) in
          guard let value, let speed = ReplaySpeed(value) else {
            throw UsageError(message: "--speed takes a positive number (2 is twice real time) or 'max'; got '\(value ?? "")'.")
          }
          draft.speed = speed
        }.attached(to: "--replay"),
        CommandOption(
          names: ["--demo"], value: nil,
          help: "The simulated demo drive, in real time: no receiver, and marked as simulated (gpsd's TPV status 8).",
          section: "SOURCES"
        ) { draft, _ in draft.demo = true }.inGroup("source"),
      ]
    }
    return options
  }

  /// The one source these options choose.
  func choice(topic: HelpTopic) throws(UsageError) -> SourceChoice {
    if !moreDevices.isEmpty, topic != .serve {
      throw UsageError(message: "--device is given twice: only 'serve' takes several receivers.", topic: topic)
    }
    if let device, topic != .serve, DevicePattern.hasWildcard(device) {
      throw UsageError(
        message: "--device '\(device)' has wildcards: only 'serve' takes several receivers; name one ('gpsbridge devices' lists them).",
        topic: topic)
    }
    let chosen = [device != nil, gpsd != nil, replay != nil, demo].filter { $0 }.count
    guard chosen <= 1 else { throw UsageError(message: "Choose one source: --device, --gpsd, --replay or --demo.", topic: topic) }
    if baud != nil, device == nil { throw UsageError(message: "--baud applies to --device only.", topic: topic) }
    if speed != nil, replay == nil { throw UsageError(message: "--speed applies to --replay only.", topic: topic) }
    if let device { return .device(path: device, baud: baud ?? .automatic) }
    if let gpsd { return .gpsd(gpsd) }
    if let replay { return .replay(path: replay, speed: speed ?? .realTime) }
    if demo { return .demo }
    return .automatic
  }

  /// The one live source these options choose.
  func liveChoice(topic: HelpTopic) throws(UsageError) -> LiveSourceChoice {
    switch try choice(topic: topic) {
    case .automatic: .automatic
    case .device(let path, let baud): .device(path: path, baud: baud)
    case .gpsd(let address): .gpsd(address)
    case .replay, .demo: throw UsageError(message: "'\(topic.rawValue)' needs a live source: --device or --gpsd.", topic: topic)
    }
  }
}

extension BaudRate {
  /// `auto` or one of ``candidates``.
  init?(_ text: String) {
    if text == "auto" {
      self = .automatic
    } else if let rate = Int(text), BaudRate.candidates.contains(rate) {
      self = .fixed(rate)
    } else {
      return nil
    }
  }
}

extension ReplaySpeed {
  /// `max`, or a positive factor of real time.
  init?(_ text: String) {
    if text == "max" {
      self = .max
    } else if let factor = Double(text), factor > 0, factor.isFinite {
      self = factor == 1 ? .realTime : .multiplied(by: factor)
    } else {
      return nil
    }
  }
}
