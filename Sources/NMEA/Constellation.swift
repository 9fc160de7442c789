/// A satellite navigation system.
public enum Constellation: String, Hashable, Sendable, Codable, CaseIterable {
  case gps, sbas, glonass, galileo, beidou, qzss, navic

  /// The NMEA 4.10/4.11 system ID carried by GSA (field 18, hexadecimal) and GSV, if known.
  public init?(systemID: Int) {
    switch systemID {
    case 1: self = .gps
    case 2: self = .glonass
    case 3: self = .galileo
    case 4: self = .beidou
    case 5: self = .qzss
    case 6: self = .navic
    default: return nil
    }
  }

  /// The constellation implied by a satellite number in NMEA's shared numbering, used when a
  /// combined (`GN`) sentence lists satellites without a system ID. The ranges are those of
  /// NMEA 4.0 and of the extended numbering gpsd documents.
  public init?(nmeaPRN prn: Int) {
    switch prn {
    case 1...32: self = .gps
    case 33...64, 120...158: self = .sbas
    case 65...96: self = .glonass
    case 193...200: self = .qzss
    case 201...264, 401...437: self = .beidou
    case 301...336: self = .galileo
    default: return nil
    }
  }
}

extension SatelliteNumbers {
  /// Each constellation with the numbers NMEA's shared numbering gives it
  /// (``Constellation/init(nmeaPRN:)``), as sets, so that a sentence's numbers are sorted by
  /// constellation a word at a time.
  static let nmeaNumbers: [(Constellation, SatelliteNumbers)] = Constellation.allCases.map { constellation in
    (constellation, SatelliteNumbers((1..<limit).filter { Constellation(nmeaPRN: $0) == constellation }))
  }

  /// SBAS's share of that numbering, which GPS sentences use too.
  static let nmeaSBASNumbers = nmeaNumbers.first { $0.0 == .sbas }!.1
}
