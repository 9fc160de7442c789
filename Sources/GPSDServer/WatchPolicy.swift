import FoundationEssentials

/// What one client asked to watch (`?WATCH={…}`), with gpsd's rules for what a new request
/// keeps: `enable` is true unless given; `json`, `nmea` and `raw` stay as the last request set
/// them; `scaled`, `split24`, `pps`, `timing` and `device` go back to their defaults unless given.
struct WatchPolicy: Hashable, Sendable {
  var enable = false
  var json = false
  var nmea = false
  /// 0 none, 1 sentences as they came (hex for binary, of which there is none), 2 the bytes.
  var raw = 0
  var scaled = false
  var split24 = false
  var pps = false
  var timing = false
  var device: String?

  /// Whether the client gets reports (TPV, SKY…) / the receiver's sentences / its bytes.
  var wantsReports: Bool { enable && (json || (!nmea && raw == 0)) }
  var wantsSentences: Bool { enable && (nmea || raw == 1) }
  var wantsBytes: Bool { enable && raw >= 2 }

  /// The fields of a `?WATCH=` object; any of them may be left out.
  struct Change: Decodable, Sendable {
    var enable: Bool?
    var json: Bool?
    var nmea: Bool?
    var raw: Int?
    var scaled: Bool?
    var split24: Bool?
    var pps: Bool?
    var timing: Bool?
    var device: String?
  }

  /// Why a `?WATCH=` object could not be read, as gpsd words it.
  struct Invalid: Error {
    var description: String
  }

  /// Reads a `?WATCH=` object's text.
  static func change(from object: some Collection<UInt8>) throws(Invalid) -> Change {
    do {
      return try JSONDecoder().decode(Change.self, from: Data(object))
    } catch {
      throw Invalid(description: "Invalid WATCH: \(Self.reason(error))")
    }
  }

  /// The policy after `change`.
  func applying(_ change: Change) -> WatchPolicy {
    var next = WatchPolicy()
    next.enable = change.enable ?? true
    next.json = change.json ?? json
    next.nmea = change.nmea ?? nmea
    next.raw = change.raw ?? raw
    next.scaled = change.scaled ?? false
    next.split24 = change.split24 ?? false
    next.pps = change.pps ?? false
    next.timing = change.timing ?? false
    next.device = change.device
    return next
  }

  private static func reason(_ error: any Error) -> String {
    guard let decoding = error as? DecodingError else { return "not a JSON object" }
    switch decoding {
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return "bad value for \(context.codingPath.map(\.stringValue).joined(separator: "."))"
    default:
      return "not a JSON object"
    }
  }
}
