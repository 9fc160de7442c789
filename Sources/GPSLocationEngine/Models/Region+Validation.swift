extension Region {
  /// Why a region cannot be monitored: checked in one place for the API, the command line's
  /// `--region` and a regions file, each problem with one message.
  public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
    /// The centre is not a place on Earth.
    case invalidCenter(latitude: Double, longitude: Double)
    /// The radius is not a positive number of metres.
    case invalidRadius(Double)
    /// The radius is larger than the engine monitors (`maximumRegionMonitoringDistance`).
    case radiusTooLarge(Double, maximum: Double)
    /// A polygon with fewer than three corners, or across the ±180° meridian.
    case invalidPolygon(String)

    public var description: String {
      switch self {
      case .invalidCenter(let latitude, let longitude):
        "the centre (\(latitude), \(longitude)) is not on Earth: latitude must be within ±90 and longitude within ±180"
      case .invalidRadius(let radius):
        "the radius \(radius) m is not a positive number of metres"
      case .radiusTooLarge(let radius, let maximum):
        "the radius \(radius) m is more than the \(maximum) m monitored at most (maximumRegionMonitoringDistance)"
      case .invalidPolygon(let why):
        "the polygon \(why)"
      }
    }
  }

  /// What keeps this region from being monitored by an engine that monitors radii up to
  /// `maximumRadius`, if anything.
  public func problem(maximumRadius: Double = LocationEngine.Configuration().maximumRegionRadius) -> Problem? {
    if let polygon {
      guard polygon.vertices.count >= 3 else { return .invalidPolygon("has \(polygon.vertices.count) corners: it needs at least three") }
      if let corner = polygon.vertices.first(where: { !$0.isValid }) {
        return .invalidCenter(latitude: corner.latitude, longitude: corner.longitude)
      }
      let longitudes = polygon.vertices.map(\.longitude)
      guard longitudes.max()! - longitudes.min()! < 180 else {
        return .invalidPolygon("straddles the ±180° meridian, which is not monitored")
      }
    }
    guard center.isValid else { return .invalidCenter(latitude: center.latitude, longitude: center.longitude) }
    guard radius.isFinite, radius > 0 else { return .invalidRadius(radius) }
    guard radius <= maximumRadius else { return .radiusTooLarge(radius, maximum: maximumRadius) }
    return nil
  }
}
