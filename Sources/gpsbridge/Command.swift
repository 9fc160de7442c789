import GPSLocation

/// Where locations come from.
enum SourceChoice: Equatable {
  /// The first receiver found, else gpsd on localhost, else the bundled demo drive.
  case automatic
  case device(path: String, baud: BaudChoice)
  case gpsd(host: String, port: Int)
  case replay(path: String, speed: ReplaySpeed)
}

enum BaudChoice: Equatable, CustomStringConvertible {
  case automatic
  case fixed(Int)

  var description: String {
    switch self {
    case .automatic: "auto"
    case .fixed(let rate): String(rate)
    }
  }
}

/// What `gpsbridge` was asked to do: the result of ``parse(_:)``, a pure function.
enum Command: Equatable {
  case run(RunOptions)
  case devices(paths: [String], json: Bool)
  case record(RecordOptions)
  case check(path: String, json: Bool)
  case help(HelpTopic)
  case version
}

struct RunOptions: Equatable {
  var source = SourceChoice.automatic
  var json = false
  var heading = false
  var regions: [Region] = []
  var regionFiles: [String] = []
  var visits = false
  var significantChanges = false
  var distanceFilter: Double?
  var desiredAccuracy: Double?
  var once = false
}

struct RecordOptions: Equatable {
  var source = SourceChoice.automatic
  var output: String?
  var duration: Double?
}

enum HelpTopic: String, Equatable, CaseIterable {
  case main, devices, record, check
}

/// A mistake in the command line: exit status 64 (EX_USAGE), with the usage of the part
/// that was being parsed.
struct UsageError: Error, Equatable {
  var message: String
  var topic: HelpTopic = .main
}

let defaultGPSDPort = 2947
let baudRates = [4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600]

/// Parses the arguments after the program name.
func parse(_ arguments: [String]) throws(UsageError) -> Command {
  var arguments = arguments[...]
  guard let first = arguments.first else { return .run(RunOptions()) }
  switch first {
  case "devices":
    arguments.removeFirst()
    var json = false
    var paths: [String] = []
    while let argument = arguments.popFirst() {
      switch argument {
      case "-h", "--help": return .help(.devices)
      case "--json": json = true
      default:
        guard !argument.hasPrefix("-") else {
          throw UsageError(message: "Unknown option '\(argument)' for 'devices'.", topic: .devices)
        }
        paths.append(argument)
      }
    }
    return .devices(paths: paths, json: json)
  case "check":
    arguments.removeFirst()
    var path: String?
    var json = false
    while let argument = arguments.popFirst() {
      switch argument {
      case "-h", "--help": return .help(.check)
      case "--json": json = true
      default:
        guard path == nil, !argument.hasPrefix("-") || argument == "-" else {
          throw UsageError(message: path == nil ? "Unknown option '\(argument)' for 'check'." : "'check' takes one file; '\(argument)' is one too many.", topic: .check)
        }
        path = argument
      }
    }
    guard let path else { throw UsageError(message: "Missing the capture file to check.", topic: .check) }
    return .check(path: path, json: json)
  case "record":
    arguments.removeFirst()
    var options = RecordOptions()
    var parser = SourceParser(topic: .record)
    while let argument = arguments.popFirst() {
      if try parser.consume(argument, &arguments) { continue }
      switch argument {
      case "-h", "--help": return .help(.record)
      case "-o", "--output": options.output = try value(for: argument, &arguments, topic: .record)
      case "--duration":
        let text = try value(for: argument, &arguments, topic: .record)
        guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
          throw UsageError(message: "--duration takes a number of seconds, like 60; got '\(text)'.", topic: .record)
        }
        options.duration = seconds
      default: throw UsageError(message: "Unknown option '\(argument)' for 'record'.", topic: .record)
      }
    }
    options.source = try parser.source()
    if case .replay = options.source {
      throw UsageError(message: "'record' records a live source; use --device or --gpsd (a capture is already a recording).", topic: .record)
    }
    guard options.output != nil else {
      throw UsageError(message: "Missing --output FILE: where to write the capture.", topic: .record)
    }
    return .record(options)
  case "help":
    arguments.removeFirst()
    guard let topic = arguments.first else { return .help(.main) }
    guard let known = HelpTopic(rawValue: topic) else {
      throw UsageError(message: "No help for '\(topic)'; try one of: devices, record, check.")
    }
    return .help(known)
  default:
    break
  }

  var options = RunOptions()
  var parser = SourceParser(topic: .main)
  while let argument = arguments.popFirst() {
    if try parser.consume(argument, &arguments) { continue }
    switch argument {
    case "-h", "--help": return .help(.main)
    case "--version": return .version
    case "--json": options.json = true
    case "--heading": options.heading = true
    case "--visits": options.visits = true
    case "--significant-changes": options.significantChanges = true
    case "--once": options.once = true
    case "--region": options.regions.append(try region(try value(for: argument, &arguments)))
    case "--regions": options.regionFiles.append(try value(for: argument, &arguments))
    case "--distance-filter": options.distanceFilter = try metres(argument, try value(for: argument, &arguments))
    case "--desired-accuracy": options.desiredAccuracy = try metres(argument, try value(for: argument, &arguments))
    default:
      if argument.hasPrefix("-") {
        throw UsageError(message: "Unknown option '\(argument)'.")
      }
      throw UsageError(message: "Unexpected argument '\(argument)'. To replay a capture, use --replay \(argument).")
    }
  }
  options.source = try parser.source()
  return .run(options)
}

/// Reads the source options shared by the main command and `record`.
struct SourceParser {
  let topic: HelpTopic
  var device: String?
  var baud: BaudChoice?
  var gpsd: (host: String, port: Int)?
  var replay: String?
  var speed: ReplaySpeed?

  init(topic: HelpTopic) { self.topic = topic }

  /// Consumes `argument` (and its value) if it is a source option.
  mutating func consume(_ argument: String, _ rest: inout ArraySlice<String>) throws(UsageError) -> Bool {
    switch argument {
    case "--device":
      device = try value(for: argument, &rest, topic: topic)
    case "--baud":
      let text = try value(for: argument, &rest, topic: topic)
      if text == "auto" {
        baud = .automatic
      } else if let rate = Int(text), baudRates.contains(rate) {
        baud = .fixed(rate)
      } else {
        throw UsageError(message: "--baud takes 'auto' or one of \(baudRates.map(String.init).joined(separator: ", ")); got '\(text)'.", topic: topic)
      }
    case "--gpsd":
      // The address is optional: take the next argument only if it is not an option.
      if let next = rest.first, !next.hasPrefix("-") {
        rest.removeFirst()
        gpsd = try address(next)
      } else {
        gpsd = ("127.0.0.1", defaultGPSDPort)
      }
    case "--replay":
      replay = try value(for: argument, &rest, topic: topic)
    case "--speed":
      let text = try value(for: argument, &rest, topic: topic)
      if text == "max" {
        speed = .unlimited
      } else if let factor = Double(text), factor > 0, factor.isFinite {
        speed = factor == 1 ? .realTime : .multiplied(by: factor)
      } else {
        throw UsageError(message: "--speed takes a positive number (2 is twice real time) or 'max'; got '\(text)'.", topic: topic)
      }
    default:
      return false
    }
    return true
  }

  func source() throws(UsageError) -> SourceChoice {
    let chosen = [device != nil, gpsd != nil, replay != nil].filter { $0 }.count
    guard chosen <= 1 else {
      throw UsageError(message: "Choose one source: --device, --gpsd or --replay.", topic: topic)
    }
    if baud != nil, device == nil {
      throw UsageError(message: "--baud applies to --device only.", topic: topic)
    }
    if speed != nil, replay == nil {
      throw UsageError(message: "--speed applies to --replay only.", topic: topic)
    }
    if let device { return .device(path: device, baud: baud ?? .automatic) }
    if let gpsd { return .gpsd(host: gpsd.host, port: gpsd.port) }
    if let replay { return .replay(path: replay, speed: speed ?? .realTime) }
    return .automatic
  }

  func address(_ text: String) throws(UsageError) -> (host: String, port: Int) {
    // HOST, HOST:PORT, :PORT, [IPv6]:PORT
    if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
      let host = String(text[text.index(after: text.startIndex)..<close])
      let rest = text[text.index(after: close)...]
      guard rest.isEmpty || rest.hasPrefix(":") else {
        throw UsageError(message: "--gpsd takes HOST[:PORT]; got '\(text)'.", topic: topic)
      }
      return (host, try port(rest.isEmpty ? nil : String(rest.dropFirst()), text))
    }
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count <= 2 else {
      throw UsageError(message: "--gpsd takes HOST[:PORT] (put IPv6 addresses in brackets); got '\(text)'.", topic: topic)
    }
    let host = parts[0].isEmpty ? "127.0.0.1" : String(parts[0])
    return (host, try port(parts.count == 2 ? String(parts[1]) : nil, text))
  }

  func port(_ text: String?, _ whole: String) throws(UsageError) -> Int {
    guard let text else { return defaultGPSDPort }
    guard let port = Int(text), (1...65535).contains(port) else {
      throw UsageError(message: "--gpsd port must be 1–65535; got '\(whole)'.", topic: topic)
    }
    return port
  }
}

func value(for option: String, _ rest: inout ArraySlice<String>, topic: HelpTopic = .main) throws(UsageError) -> String {
  guard let next = rest.popFirst(), !next.hasPrefix("--") else {
    throw UsageError(message: "\(option) needs a value.", topic: topic)
  }
  return next
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
  guard abs(latitude) <= 90, abs(longitude) <= 180 else {
    throw UsageError(message: "--region '\(parts[0])': latitude must be within ±90 and longitude within ±180.")
  }
  guard radius > 0, radius.isFinite else {
    throw UsageError(message: "--region '\(parts[0])': the radius must be a positive number of metres.")
  }
  return Region(identifier: parts[0], center: LocationCoordinate2D(latitude: latitude, longitude: longitude), radius: radius)
}
