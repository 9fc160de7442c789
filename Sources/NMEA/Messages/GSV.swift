/// GSV: satellites in view, up to four per sentence, in a numbered group of sentences.
///
/// ```
///        1 2 3  4  5  6   7  8 … 19 20                                  (21)
///        | | |  |  |  |   |  |    |  |                                    |
/// $--GSV,x,x,xx,xx,xx,xxx,xx,…,xx,xx,xxx,xx,h*hh
/// ```
/// 1 sentences in the group · 2 this sentence's number · 3 satellites in view · then for
/// each of up to four satellites: number, elevation (degrees), azimuth (degrees true), SNR
/// (dB-Hz, empty when not tracked) · last, after the satellites, the signal ID (NMEA 4.10+,
/// hexadecimal: which frequency band these SNRs were measured on).
public struct GSV: Hashable, Sendable {
  public var talker: Talker
  public var messageCount: Int
  public var messageNumber: Int
  public var satellitesInView: Int?
  public var satellites: Satellites
  /// NMEA 4.10 signal ID, when present.
  public var signalID: Int?

  /// Whether this is the group's last sentence.
  public var isLast: Bool { messageNumber >= messageCount }

  /// One satellite's line of sight and signal strength, packed into eight bytes so that a
  /// GSV stays small to copy.
  public struct Satellite: Hashable, Sendable {
    let packedNumber: Int16
    let packedElevation: Int16
    let packedAzimuth: Int16
    let packedSNR: Int16
    static let unknown = Int16.min

    public init(number: Int, elevation: Int? = nil, azimuth: Int? = nil, snr: Int? = nil) {
      func pack(_ value: Int?) -> Int16 { value.map { Int16(clamping: $0) } ?? Self.unknown }
      packedNumber = Int16(clamping: number)
      packedElevation = pack(elevation)
      packedAzimuth = pack(azimuth)
      packedSNR = pack(snr)
    }

    public var number: Int { Int(packedNumber) }
    /// Degrees above the horizon, −90 to 90.
    public var elevation: Int? { packedElevation == Self.unknown ? nil : Int(packedElevation) }
    /// Degrees clockwise from true north, 0 to 359.
    public var azimuth: Int? { packedAzimuth == Self.unknown ? nil : Int(packedAzimuth) }
    /// Carrier-to-noise density, dB-Hz; `nil` when not tracked.
    public var snr: Int? { packedSNR == Self.unknown ? nil : Int(packedSNR) }
  }

  /// Up to four satellites, stored inline so decoding allocates nothing.
  public struct Satellites: Hashable, Sendable, RandomAccessCollection {
    var slots: (Satellite, Satellite, Satellite, Satellite)
    public private(set) var count = 0

    init() {
      let empty = Satellite(number: 0)
      slots = (empty, empty, empty, empty)
    }

    mutating func append(_ satellite: Satellite) {
      switch count {
      case 0: slots.0 = satellite
      case 1: slots.1 = satellite
      case 2: slots.2 = satellite
      case 3: slots.3 = satellite
      default: return
      }
      count += 1
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> Satellite {
      precondition(position >= 0 && position < count, "GSV satellite index out of range")
      switch position {
      case 0: return slots.0
      case 1: return slots.1
      case 2: return slots.2
      default: return slots.3
      }
    }

    public static func == (lhs: Satellites, rhs: Satellites) -> Bool { lhs.elementsEqual(rhs) }
    public func hash(into hasher: inout Hasher) {
      hasher.combine(count)
      for satellite in self { hasher.combine(satellite) }
    }
  }
}

extension GSV {
  public init(_ sentence: Sentence) throws(NMEAError) { self = try sentence.withView(GSV.init) }

  package init(_ sentence: SentenceView) throws(NMEAError) {
    var satellites = Satellites()
    self = try GSV(sentence) { satellites.append($0) }
    self.satellites = satellites
  }

  /// Reads and checks every field, showing `eachSatellite` each satellite instead of keeping
  /// them. With a closure that does nothing, this is the check alone, for streams whose
  /// satellites are not wanted.
  @inline(__always)
  package init(_ sentence: SentenceView, eachSatellite: (Satellite) -> Void) throws(NMEAError) {
    try sentence.require(.gsv)
    // Three header fields, four per satellite, and one more when a signal ID ends the line.
    let satelliteFields = max(0, sentence.fieldCount - 3)
    let hasSignalID = satelliteFields % 4 == 1
    let blocks = min(4, satelliteFields / 4)
    self = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in
      let messageCount = try fields.required { (fields: inout Fields) throws(NMEAError) in try fields.integer() }
      let messageNumber = try fields.required { (fields: inout Fields) throws(NMEAError) in try fields.integer() }
      guard messageCount >= 1, messageNumber >= 1, messageNumber <= messageCount, messageCount <= 32 else {
        throw .invalidField(.gsv, field: 2)
      }
      let inView = try fields.integer()
      for _ in 0..<blocks {
        let number = try fields.integer()
        let elevation = try fields.integer(in: -90...90)
        let azimuth = try fields.integer(in: 0...360)
        let snr = try fields.integer(in: 0...99)
        // Receivers pad the last sentence of a group with empty blocks.
        guard let number else { continue }
        guard number > 0, number < SatelliteNumbers.limit else { throw .invalidField(.gsv, field: fields.nextIndex - 4) }
        eachSatellite(Satellite(number: number, elevation: elevation, azimuth: azimuth, snr: snr))
      }
      fields.skip(max(0, satelliteFields / 4 - blocks) * 4)
      return GSV(
        talker: sentence.talker, messageCount: messageCount, messageNumber: messageNumber,
        satellitesInView: inView, satellites: Satellites(),
        signalID: hasSignalID ? try fields.hexadecimal() : nil)
    }
  }
}
