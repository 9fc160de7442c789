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

    public var description: String {
      switch self {
      case .invalidCenter(let latitude, let longitude):
        "the centre (\(latitude), \(longitude)) is not on Earth: latitude must be within ±90 and longitude within ±180"
      case .invalidRadius(let radius):
        "the radius \(radius) m is not a positive number of metres"
      case .radiusTooLarge(let radius, let maximum):
        "the radius \(radius) m is more than the \(maximum) m monitored at most (maximumRegionMonitoringDistance)"
      }
    }
  }

  /// What keeps this region from being monitored by an engine that monitors radii up to
  /// `maximumRadius`, if anything.
  public func problem(maximumRadius: Double = LocationEngine.Configuration().maximumRegionRadius) -> Problem? {
    guard center.isValid else { return .invalidCenter(latitude: center.latitude, longitude: center.longitude) }
    guard radius.isFinite, radius > 0 else { return .invalidRadius(radius) }
    guard radius <= maximumRadius else { return .radiusTooLarge(radius, maximum: maximumRadius) }
    return nil
  }
}
