import FoundationEssentials

/// A direction of travel or of the vehicle, shaped like `CLHeading`.
///
/// On Linux there is no compass: the heading comes from the receiver's course over ground
/// while moving (see ``LocationEngine/Configuration/headingMinimumSpeed``), or from a heading
/// sensor's or dual-antenna receiver's HDT/THS sentences when present. Negative values mean
/// invalid, as in CoreLocation.
public struct Heading: Hashable, Sendable, Codable {
  /// Degrees clockwise from magnetic north; negative when the magnetic variation is unknown.
  public var magneticHeading: Double
  /// Degrees clockwise from true north.
  public var trueHeading: Double
  /// Estimated error in degrees; negative when invalid.
  public var headingAccuracy: Double
  public var timestamp: Date

  public init(magneticHeading: Double = -1, trueHeading: Double, headingAccuracy: Double, timestamp: Date) {
    self.magneticHeading = magneticHeading
    self.trueHeading = trueHeading
    self.headingAccuracy = headingAccuracy
    self.timestamp = timestamp
  }
}
