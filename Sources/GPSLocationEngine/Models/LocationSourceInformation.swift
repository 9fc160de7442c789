/// How a location was produced, as `CLLocationSourceInformation`: a program that must not act
/// on a made-up position (a geofence that opens a gate, a clock) can tell one from a
/// receiver's.
public struct LocationSourceInformation: Hashable, Sendable, Codable {
  /// Made by software, not measured now by a receiver: a replayed capture or the simulator.
  public var isSimulatedBySoftware: Bool
  /// Made by an accessory rather than the system: always `true` for a receiver's, as every
  /// location here comes from an external receiver; kept for CoreLocation's shape.
  public var isProducedByAccessory: Bool

  public init(isSimulatedBySoftware: Bool = false, isProducedByAccessory: Bool = true) {
    self.isSimulatedBySoftware = isSimulatedBySoftware
    self.isProducedByAccessory = isProducedByAccessory
  }

  /// A replay's or the simulator's.
  public static let simulated = LocationSourceInformation(isSimulatedBySoftware: true)
}
