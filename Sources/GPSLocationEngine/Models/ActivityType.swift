/// What the device is used for, as `CLActivityType`: each ``LiveConfiguration`` has one, and
/// `ReceiverSetup` turns it into the receiver's dynamic model (`DynamicModel(_:)`), which a
/// program sets only with its user's consent, through `gpsbridge configure --for` or
/// `ReceiverSetup`, since it changes the receiver for every program that reads it.
public enum ActivityType: String, Hashable, Sendable, CaseIterable {
  /// Nothing in particular: a receiver carried about.
  case other
  /// Driving on roads.
  case automotiveNavigation
  /// Boats, trains and other vehicles off the road.
  case otherNavigation
  /// Walking, running, cycling.
  case fitness
  /// Aircraft and drones.
  case airborne
}
