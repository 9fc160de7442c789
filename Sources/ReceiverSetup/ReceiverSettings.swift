import GPSLocationEngine

/// Settings of a receiver, each optional: a change names only what it changes, and a
/// receiver's current settings leave out what it cannot say.
public struct ReceiverSettings: Hashable, Sendable {
  /// Navigation epochs a second.
  public var rate: Int?
  /// The serial line's speed, bits per second.
  public var baudRate: Int?
  /// The NMEA sentences sent each epoch, by type (`GGA`, `RMC`…); every other standard one off.
  public var sentences: Set<NMEASentenceType>?
  /// The satellite systems tracked.
  public var constellations: Set<SatelliteSystem>?
  public var dynamicModel: DynamicModel?
  /// What the receiver sends: NMEA, UBX, or both.
  public var outputProtocol: OutputProtocol?
  /// The time pulse: its period and width.
  public var timePulse: TimePulse?
  /// The receiver's interference monitor and the messages that say what it and the spoofing
  /// detector see (u-blox generation 9: `CFG-ITFM`, and `MON-RF`, `NAV-STATUS`, `SEC-SIG` out;
  /// M8: `CFG-ITFM`, and `MON-HW`, `NAV-STATUS` out): on or off. Read as on while any of them
  /// is on. Set in RAM only.
  public var integrity: Bool?

  public init(
    rate: Int? = nil, baudRate: Int? = nil, sentences: Set<NMEASentenceType>? = nil, constellations: Set<SatelliteSystem>? = nil,
    dynamicModel: DynamicModel? = nil, outputProtocol: OutputProtocol? = nil, timePulse: TimePulse? = nil, integrity: Bool? = nil
  ) {
    self.rate = rate
    self.baudRate = baudRate
    self.sentences = sentences
    self.constellations = constellations
    self.dynamicModel = dynamicModel
    self.outputProtocol = outputProtocol
    self.timePulse = timePulse
    self.integrity = integrity
  }

  /// Whether nothing is named.
  public var isEmpty: Bool { self == ReceiverSettings() }

  /// The rates a receiver is asked for: 1 to 25 epochs a second.
  public static let rates = 1...25

  /// These settings with `other`'s named values on top.
  public func merging(_ other: ReceiverSettings) -> ReceiverSettings {
    ReceiverSettings(
      rate: other.rate ?? rate, baudRate: other.baudRate ?? baudRate, sentences: other.sentences ?? sentences,
      constellations: other.constellations ?? constellations, dynamicModel: other.dynamicModel ?? dynamicModel,
      outputProtocol: other.outputProtocol ?? outputProtocol, timePulse: other.timePulse ?? timePulse,
      integrity: other.integrity ?? integrity)
  }

  /// The settings named, for people: a name and a value each, in a fixed order ("rate",
  /// "5 Hz"; "sentences", "GGA,RMC").
  public var described: [(name: String, value: String)] {
    func list(_ names: [String]) -> String { names.isEmpty ? "none" : names.joined(separator: ",") }
    var rows: [(String, String)] = []
    if let rate { rows.append(("rate", "\(rate) Hz")) }
    if let baudRate { rows.append(("baud", "\(baudRate)")) }
    if let sentences { rows.append(("sentences", list(sentences.sorted().map(\.rawValue)))) }
    if let constellations { rows.append(("constellations", list(constellations.sorted().map(\.rawValue)))) }
    if let dynamicModel { rows.append(("dynamic model", dynamicModel.rawValue)) }
    if let outputProtocol { rows.append(("output protocol", outputProtocol.rawValue)) }
    if let timePulse { rows.append(("time pulse", "every \(timePulse.period) µs, \(timePulse.width) µs wide")) }
    if let integrity { rows.append(("integrity", integrity ? "on" : "off")) }
    return rows
  }

  /// Only the values of these settings that `other` names: what a change will touch.
  public func restricted(to other: ReceiverSettings) -> ReceiverSettings {
    ReceiverSettings(
      rate: other.rate == nil ? nil : rate, baudRate: other.baudRate == nil ? nil : baudRate,
      sentences: other.sentences == nil ? nil : sentences, constellations: other.constellations == nil ? nil : constellations,
      dynamicModel: other.dynamicModel == nil ? nil : dynamicModel, outputProtocol: other.outputProtocol == nil ? nil : outputProtocol,
      timePulse: other.timePulse == nil ? nil : timePulse, integrity: other.integrity == nil ? nil : integrity)
  }
}

/// A standard NMEA sentence a receiver can be told to send or not.
public enum NMEASentenceType: String, Hashable, Sendable, CaseIterable, Comparable {
  case gga = "GGA"
  case gll = "GLL"
  case gsa = "GSA"
  case gsv = "GSV"
  case rmc = "RMC"
  case vtg = "VTG"
  case zda = "ZDA"

  /// About how many bytes the sentence takes each epoch, with its line end, for a receiver
  /// reporting `systems` satellite systems of their own (GSA is one a system, GSV about two
  /// a system: eight satellites in view, four a sentence).
  func bytesPerEpoch(systems: Int) -> Int {
    switch self {
    case .gga: 78
    case .gll: 52
    case .gsa: 66 * systems
    case .gsv: 70 * 2 * systems
    case .rmc: 72
    case .vtg: 40
    case .zda: 38
    }
  }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A satellite system.
public enum SatelliteSystem: String, Hashable, Sendable, CaseIterable, Comparable {
  case gps, glonass, galileo, beidou, qzss, sbas

  public static func < (lhs: Self, rhs: Self) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}

/// How the receiver expects to move, which shapes its filter.
public enum DynamicModel: String, Hashable, Sendable, CaseIterable {
  case portable, stationary, pedestrian, automotive, sea, airborne

  /// The model for a device used for `activity`: `portable` for ``ActivityType/other``,
  /// `automotive`, `sea` for other navigation (boats; trains take it too), `pedestrian` for
  /// fitness, `airborne` (u-blox's "airborne < 1 g", for drones and light aircraft).
  public init(_ activity: ActivityType) {
    switch activity {
    case .other: self = .portable
    case .automotiveNavigation: self = .automotive
    case .otherNavigation: self = .sea
    case .fitness: self = .pedestrian
    case .airborne: self = .airborne
    }
  }
}

extension ReceiverSettings {
  /// The settings that suit a stream of live updates of `configuration`: its dynamic model.
  /// Apply them (with the user's consent: they are the receiver's, for every program) with
  /// ``ReceiverSetup``.
  public init(for configuration: LiveConfiguration) {
    self.init(dynamicModel: DynamicModel(configuration.activityType))
  }
}

/// The protocols a receiver sends on its port.
public enum OutputProtocol: String, Hashable, Sendable, CaseIterable {
  case nmea, ubx, both
}

/// A time pulse: every `period`, high for `width`, both in microseconds.
public struct TimePulse: Hashable, Sendable {
  public var period: Int
  public var width: Int

  public init(period: Int, width: Int) {
    self.period = period
    self.width = width
  }
}
