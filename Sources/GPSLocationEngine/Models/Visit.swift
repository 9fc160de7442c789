import FoundationEssentials

/// A stay at one place, shaped like `CLVisit`: reported once on arrival, with
/// ``departureDate`` `Date.distantFuture`, and again on departure with both dates.
public struct Visit: Hashable, Sendable, Codable {
  /// The centre of the fixes during the stay.
  public var coordinate: LocationCoordinate2D
  /// Metres: how widely those fixes were spread (at least their typical accuracy).
  public var horizontalAccuracy: Double
  public var arrivalDate: Date
  public var departureDate: Date

  public init(coordinate: LocationCoordinate2D, horizontalAccuracy: Double, arrivalDate: Date, departureDate: Date = .distantFuture) {
    self.coordinate = coordinate
    self.horizontalAccuracy = horizontalAccuracy
    self.arrivalDate = arrivalDate
    self.departureDate = departureDate
  }

  /// Whether this reports a departure (both dates known).
  public var isDeparture: Bool { departureDate != .distantFuture }
}
