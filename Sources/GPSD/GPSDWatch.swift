import Plumbing

/// What one client watches: the `?WATCH` request's settings and the `WATCH` report that
/// says them back, with gpsd's rules for what a new request keeps (``applying(_:)``).
public struct GPSDWatch: Hashable, Sendable, Codable {
  public var enable = false
  /// Reports (TPV, SKY, …) as JSON.
  public var json = false
  /// The receiver's sentences.
  public var nmea = false
  /// 0 none, 1 sentences as they came (hex for binary, of which there is none), 2 the bytes.
  public var raw = 0
  public var scaled = false
  public var split24 = false
  public var pps = false
  public var timing = false
  /// One device only, by path.
  public var device: String?
  /// gpsbridge's extension: also REGION and VISIT objects (region entry and exit, visits).
  /// gpsd has no such setting; a client that does not ask sees exactly what gpsd would send.
  public var regions = false
  /// gpsbridge's extension: also INTEGRITY objects (what each receiver says of jamming,
  /// spoofing and its antenna, at once and at each change). gpsd has no such setting.
  public var integrity = false
  /// gpsbridge's extension: also SWITCH objects (the virtual `best` receiver moved to another
  /// receiver, and why). gpsd has no such setting.
  public var switches = false

  public init(
    enable: Bool = false, json: Bool = false, nmea: Bool = false, raw: Int = 0, scaled: Bool = false, split24: Bool = false,
    pps: Bool = false, timing: Bool = false, device: String? = nil, regions: Bool = false, integrity: Bool = false,
    switches: Bool = false
  ) {
    self.enable = enable
    self.json = json
    self.nmea = nmea
    self.raw = raw
    self.scaled = scaled
    self.split24 = split24
    self.pps = pps
    self.timing = timing
    self.device = device
    self.regions = regions
    self.integrity = integrity
    self.switches = switches
  }

  public init(from decoder: any Decoder) throws {
    let change = try Change(from: decoder)
    self = GPSDWatch(enable: false).applying(change)
    enable = change.enable ?? false
  }

  public func encode(to encoder: any Encoder) throws {
    try Change(self).encode(to: encoder)
  }

  /// Whether the client gets reports (TPV, SKY…) / the receiver's sentences / its bytes.
  public var wantsReports: Bool { enable && (json || (!nmea && raw == 0)) }
  public var wantsSentences: Bool { enable && (nmea || raw == 1) }
  public var wantsBytes: Bool { enable && raw >= 2 }
  /// Whether the client gets REGION and VISIT objects.
  public var wantsRegions: Bool { enable && json && regions }
  /// Whether the client gets INTEGRITY objects.
  public var wantsIntegrity: Bool { enable && json && integrity }
  /// Whether the client gets SWITCH objects.
  public var wantsSwitches: Bool { enable && json && switches }
  /// Whether the watch takes what the receiver at `path` says: all receivers, or that one.
  public func accepts(_ path: String) -> Bool { device == nil || device == path }

  /// The fields of a `?WATCH=` object; any of them may be left out.
  public struct Change: Codable, Hashable, Sendable {
    public var enable: Bool?
    public var json: Bool?
    public var nmea: Bool?
    public var raw: Int?
    public var scaled: Bool?
    public var split24: Bool?
    public var pps: Bool?
    public var timing: Bool?
    public var device: String?
    public var regions: Bool?
    public var integrity: Bool?
    public var switches: Bool?

    public init(
      enable: Bool? = nil, json: Bool? = nil, nmea: Bool? = nil, raw: Int? = nil, scaled: Bool? = nil, split24: Bool? = nil,
      pps: Bool? = nil, timing: Bool? = nil, device: String? = nil, regions: Bool? = nil, integrity: Bool? = nil,
      switches: Bool? = nil
    ) {
      self.enable = enable
      self.json = json
      self.nmea = nmea
      self.raw = raw
      self.scaled = scaled
      self.split24 = split24
      self.pps = pps
      self.timing = timing
      self.device = device
      self.regions = regions
      self.integrity = integrity
      self.switches = switches
    }

    /// Every setting of `watch`, as a request that sets them all.
    public init(_ watch: GPSDWatch) {
      self.init(
        enable: watch.enable, json: watch.json, nmea: watch.nmea, raw: watch.raw, scaled: watch.scaled, split24: watch.split24,
        pps: watch.pps, timing: watch.timing, device: watch.device, regions: watch.regions ? true : nil,
        integrity: watch.integrity ? true : nil, switches: watch.switches ? true : nil)
    }

    /// Reads a `?WATCH=` object's text; the error says why not, in gpsd's words.
    public init(json object: some Collection<UInt8>) throws(Invalid) {
      do {
        self = try JSONValueDecoder.decode(Change.self, from: object)
      } catch {
        throw Invalid(description: "Invalid WATCH: \(Self.reason(error))")
      }
    }

    /// The object, compact, in gpsd's order, with only the fields that are set.
    public var text: String {
      var writer = JSONWriter(capacity: 128)
      write(into: &writer)
      return writer.string
    }

    package func write(into writer: inout JSONWriter) {
      writer.beginObject()
      if let enable { writer.field("enable", enable) }
      if let json { writer.field("json", json) }
      if let nmea { writer.field("nmea", nmea) }
      if let raw { writer.field("raw", raw) }
      if let scaled { writer.field("scaled", scaled) }
      if let timing { writer.field("timing", timing) }
      if let split24 { writer.field("split24", split24) }
      if let pps { writer.field("pps", pps) }
      if let device { writer.field("device", device) }
      if let regions { writer.field("regions", regions) }
      if let integrity { writer.field("integrity", integrity) }
      if let switches { writer.field("switches", switches) }
      writer.endObject()
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

  /// Why a `?WATCH=` object could not be read, as gpsd words it.
  public struct Invalid: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// The watch after `change`, as gpsd keeps it: `enable` is true unless given; `json`,
  /// `nmea` and `raw` stay as the last request set them; `scaled`, `split24`, `pps`, `timing`
  /// and `device` go back to their defaults unless given. (`regions`, `integrity` and `switches`,
  /// gpsbridge's own, stay as the last request set them, as `json` does.)
  public func applying(_ change: Change) -> GPSDWatch {
    GPSDWatch(
      enable: change.enable ?? true, json: change.json ?? json, nmea: change.nmea ?? nmea, raw: change.raw ?? raw,
      scaled: change.scaled ?? false, split24: change.split24 ?? false, pps: change.pps ?? false, timing: change.timing ?? false,
      device: change.device, regions: change.regions ?? regions, integrity: change.integrity ?? integrity,
      switches: change.switches ?? switches)
  }
}
