/// A circular geographic region to monitor, shaped like `CLCircularRegion`.
///
/// Unlike composable-core-location's `Region`, this one has its centre and radius and can be
/// built by hand. Regions are identified by ``identifier``: monitoring a region with the same
/// identifier as a monitored one replaces it.
public struct Region: Hashable, Sendable, Codable {
  public var identifier: String
  public var center: LocationCoordinate2D
  /// Metres.
  public var radius: Double
  public var notifyOnEntry: Bool
  public var notifyOnExit: Bool
  /// The corners, when the region is a polygon (a `Monitor`'s condition); `nil` for a circle.
  package var polygon: Polygon?

  public init(identifier: String, center: LocationCoordinate2D, radius: Double, notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
    self.identifier = identifier
    self.center = center
    self.radius = radius
    self.notifyOnEntry = notifyOnEntry
    self.notifyOnExit = notifyOnExit
  }

  /// Whether `coordinate` lies within the circle (or the polygon).
  public func contains(_ coordinate: LocationCoordinate2D) -> Bool {
    signedDistance(to: coordinate) <= 0
  }
}

extension Region {
  private enum CodingKeys: String, CodingKey {
    case identifier, center, radius, notifyOnEntry, notifyOnExit
  }

  /// Decodes a region; `notifyOnEntry` and `notifyOnExit` default to true when left out, so
  /// a regions file needs only an identifier, a centre and a radius.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      identifier: try container.decode(String.self, forKey: .identifier),
      center: try container.decode(LocationCoordinate2D.self, forKey: .center),
      radius: try container.decode(Double.self, forKey: .radius),
      notifyOnEntry: try container.decodeIfPresent(Bool.self, forKey: .notifyOnEntry) ?? true,
      notifyOnExit: try container.decodeIfPresent(Bool.self, forKey: .notifyOnExit) ?? true)
  }
}

/// Whether the device is inside a region, as `CLRegionState`.
public enum RegionState: String, Hashable, Sendable, Codable {
  case unknown, inside, outside
}
