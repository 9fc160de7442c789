import FoundationEssentials

/// What a stream of live updates is for, as `CLLocationUpdate.LiveConfiguration`: it sets the
/// accuracy the program asks for (worse locations are still delivered, flagged
/// ``LocationUpdate/accuracyLimited``), the distance the position must move between updates,
/// and the rule that says the device is standing still (``StationaryRule``).
///
/// Apple does not publish its numbers; these are gpsbridge's, and why:
///
/// | configuration | desired accuracy | distance filter | stationary: speed, drift, for | receiver's model |
/// |---|---|---|---|---|
/// | ``default`` | 10 m | none | ≤ 0.5 m/s, ≤ 10 m, 10 s | portable |
/// | ``automotiveNavigation`` | 10 m | none | ≤ 0.5 m/s, ≤ 5 m, 3 s | automotive |
/// | ``otherNavigation`` | 10 m | none | ≤ 0.6 m/s, ≤ 50 m, 60 s | sea |
/// | ``fitness`` | 5 m | 2 m | ≤ 0.3 m/s, ≤ 5 m, 10 s | pedestrian |
/// | ``airborne`` | 25 m | none | ≤ 1 m/s, ≤ 20 m, 30 s | airborne |
///
/// A car at a red light is still after 3 s (a navigation display should know at once); a boat
/// at anchor swings tens of metres round its anchor at a few tenths of a metre per second,
/// hence ``otherNavigation``'s 50 m and a minute; a walker who stops to read a sign is still
/// after 10 s, and the fitness stream skips the metre of scatter a standing receiver shows; an
/// aircraft taxies faster than 1 m/s. The drift is allowed beyond twice the receiver's stated
/// accuracy, so a receiver that is honest about its scatter is not called moving because of it.
///
/// The receiver's model (its navigation filter's idea of how it moves: a u-blox's dynamic
/// model) follows the ``activityType``, and is not changed by a stream of updates: it is the
/// receiver's, for every program that reads it. With the user's consent, set it with
/// `gpsbridge configure --device PATH --for automotiveNavigation`, or `ReceiverSetup` with
/// `ReceiverSettings(for: configuration)`.
public struct LiveConfiguration: Hashable, Sendable {
  /// Metres: a location whose horizontal accuracy is worse (or unknown) is delivered with
  /// ``LocationUpdate/accuracyLimited`` set.
  public var desiredAccuracy: Double
  /// Metres the position must move before the next update; ``LocationEngine/distanceFilterNone`` delivers every fix.
  public var distanceFilter: Double
  /// When the device counts as standing still.
  public var stationary: StationaryRule
  /// What the device is used for: the receiver's dynamic model to set, with consent.
  public var activityType: ActivityType

  public init(
    desiredAccuracy: Double, distanceFilter: Double = LocationEngine.distanceFilterNone, stationary: StationaryRule,
    activityType: ActivityType = .other
  ) {
    self.desiredAccuracy = desiredAccuracy
    self.distanceFilter = distanceFilter
    self.stationary = stationary
    self.activityType = activityType
  }

  /// For a program that does not say what it is for.
  public static let `default` = LiveConfiguration(
    desiredAccuracy: 10, stationary: StationaryRule(maximumSpeed: 0.5, maximumDrift: 10, duration: 10))
  /// A car's navigation: every fix, and still after 3 s at a red light.
  public static let automotiveNavigation = LiveConfiguration(
    desiredAccuracy: 10, stationary: StationaryRule(maximumSpeed: 0.5, maximumDrift: 5, duration: 3),
    activityType: .automotiveNavigation)
  /// Boats, trains and other vehicles off the road: still once the position keeps within
  /// 50 m for a minute (a boat swinging at anchor).
  public static let otherNavigation = LiveConfiguration(
    desiredAccuracy: 10, stationary: StationaryRule(maximumSpeed: 0.6, maximumDrift: 50, duration: 60),
    activityType: .otherNavigation)
  /// Walking, running, cycling: a location every 2 m.
  public static let fitness = LiveConfiguration(
    desiredAccuracy: 5, distanceFilter: 2, stationary: StationaryRule(maximumSpeed: 0.3, maximumDrift: 5, duration: 10),
    activityType: .fitness)
  /// Aircraft and drones.
  public static let airborne = LiveConfiguration(
    desiredAccuracy: 25, stationary: StationaryRule(maximumSpeed: 1, maximumDrift: 20, duration: 30),
    activityType: .airborne)
}

/// When a device counts as standing still: for ``duration`` seconds of fix time, every fix
/// slower than ``maximumSpeed`` (a fix without a speed is judged by its position alone) and
/// within ``maximumDrift`` metres, plus twice its stated horizontal accuracy (at most 50 m), of
/// where the stillness began. A slow fix beyond the drift starts the count again from itself;
/// a fast one stops it, and the next slow fix starts it.
public struct StationaryRule: Hashable, Sendable {
  /// Metres per second.
  public var maximumSpeed: Double
  /// Metres beyond twice the fix's stated accuracy.
  public var maximumDrift: Double
  /// Seconds of fix time.
  public var duration: TimeInterval

  public init(maximumSpeed: Double, maximumDrift: Double, duration: TimeInterval) {
    self.maximumSpeed = maximumSpeed
    self.maximumDrift = maximumDrift
    self.duration = duration
  }
}
