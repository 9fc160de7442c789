import Trigonometry

/// A caster's sourcetable: its mountpoints (`STR` lines), as `gpsbridge ntrip` lists them.
public struct Sourcetable: Sendable, Equatable {
  /// One mountpoint.
  public struct Mountpoint: Sendable, Equatable {
    public var name: String
    public var identifier: String
    /// `RTCM 3.2`, `RTCM 3`…
    public var format: String
    /// The messages and their rates, as the caster says them (`1005(10),1074(1)`).
    public var messages: String
    /// `GPS+GLO+GAL+BDS`…
    public var systems: String
    public var country: String
    public var latitude: Double?
    public var longitude: Double?
    /// Whether the caster wants the rover's position (a GGA) sent up: a VRS or nearest-base
    /// mountpoint stops sending without it.
    public var wantsGGA: Bool
    /// `N` none, `B` basic, `D` digest.
    public var authentication: String
  }

  public var mountpoints: [Mountpoint]

  public init(mountpoints: [Mountpoint]) { self.mountpoints = mountpoints }

  /// Reads the table's text; lines that are no `STR` line with a name are skipped.
  public init(text: String) {
    mountpoints = text.split(whereSeparator: \.isNewline).compactMap { line in
      let fields = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
      guard fields.count >= 2, fields[0] == "STR", !fields[1].isEmpty else { return nil }
      // Casters leave fields out (RTKLIB's gives only the name): a missing one is empty.
      func field(_ index: Int) -> String { index < fields.count ? fields[index] : "" }
      return Mountpoint(
        name: fields[1], identifier: field(2), format: field(3), messages: field(4), systems: field(6), country: field(8),
        latitude: Double(field(9)), longitude: Double(field(10)), wantsGGA: field(11) == "1", authentication: field(15))
    }
  }

  /// The mountpoint named `name`.
  public subscript(name: String) -> Mountpoint? { mountpoints.first { $0.name == name } }
}

extension Sourcetable.Mountpoint {
  /// Its distance from a position, metres (great circle), when it says where it is.
  public func distance(fromLatitude latitude: Double, longitude: Double) -> Double? {
    guard let ownLatitude = self.latitude, let ownLongitude = self.longitude, ownLatitude != 0 || ownLongitude != 0 else { return nil }
    return GreatCircle.distance(latitude, longitude, ownLatitude, ownLongitude)
  }
}

/// Haversine on the mean Earth radius: ample for "how far is the base".
enum GreatCircle {
  static func distance(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Double {
    let radians = Double.pi / 180
    let dLatitude = (latitude2 - latitude1) * radians
    let dLongitude = (longitude2 - longitude1) * radians
    let a =
      sine(dLatitude / 2) * sine(dLatitude / 2) + cosine(latitude1 * radians) * cosine(latitude2 * radians)
      * sine(dLongitude / 2) * sine(dLongitude / 2)
    return 2 * 6_371_008.8 * arcTangent2(a.squareRoot(), (1 - a).squareRoot())
  }
}
