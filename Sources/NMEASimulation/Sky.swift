import NMEA

/// A deterministic sky: a few satellites of each constellation whose elevations, azimuths and
/// signal strengths drift slowly with time, the same for the same seed.
public struct Sky: Hashable, Sendable {
  /// A satellite as a GSV sentence lists it.
  public struct Satellite: Hashable, Sendable {
    public var constellation: Constellation
    /// The talker of its GSV group (`GP`, `GL`, `GA`, `GB`).
    public var talker: String
    /// Its number in that GSV group.
    public var number: Int
    var elevation: Int
    var azimuth: Int
    var signal: Int
  }

  /// A satellite's line of sight at one moment.
  public struct View: Hashable, Sendable {
    public var satellite: Satellite
    public var elevation: Int
    public var azimuth: Int
    /// dB-Hz; `nil` when not tracked (below 10° elevation).
    public var snr: Int?
  }

  public var satellites: [Satellite]

  public init(seed: UInt64, constellations: [Constellation]) {
    var generator = SplitMix64(seed: seed)
    var satellites: [Satellite] = []
    for constellation in constellations {
      let (talker, numbers): (String, ClosedRange<Int>) =
        switch constellation {
        case .glonass: ("GL", 65...88)
        case .galileo: ("GA", 1...36)
        case .beidou: ("GB", 1...37)
        default: ("GP", 1...32)
        }
      var chosen = Set<Int>()
      while chosen.count < 7 { chosen.insert(Int.random(in: numbers, using: &generator)) }
      for number in chosen.sorted() {
        satellites.append(
          Satellite(
            constellation: constellation, talker: talker, number: number,
            elevation: Int.random(in: 5...85, using: &generator), azimuth: Int.random(in: 0...359, using: &generator),
            signal: Int.random(in: 24...48, using: &generator)))
      }
    }
    self.satellites = satellites
  }

  /// Every satellite's view `seconds` after the start.
  public func view(at seconds: Double) -> [View] {
    let minutes = Int(seconds / 60)
    return satellites.map { satellite in
      let elevation = max(1, min(89, satellite.elevation + minutes / 10 % 3))
      let azimuth = (satellite.azimuth + Int(seconds / 120)) % 360
      let snr = elevation > 10 ? satellite.signal + (Int(seconds / 7) + satellite.number) % 4 : nil
      return View(satellite: satellite, elevation: elevation, azimuth: azimuth, snr: snr)
    }
  }
}
