/// One element of a live-updates stream, as `CLLocationUpdate`: the location when there is one,
/// whether the device stands still, and what stands in the way when there is none.
///
/// Make the stream with `LocationUpdate.liveUpdates(_:from:)` (in `GPSLocation`). The
/// diagnostics that have a Linux meaning are kept under Apple's names; each is said once
/// when it starts to hold, not repeated while it does.
public struct LocationUpdate: Hashable, Sendable {
  /// The location, or `nil` in an update that only says why there is none.
  public var location: Location?
  /// The device stands still by the configuration's ``StationaryRule``. The first update
  /// that says so is delivered; while it stays still no more are (the location would not
  /// change), and the next one comes when it moves.
  public var isStationary: Bool
  /// No location can be had: the device is gone (unplugged, I/O error), gpsd cannot be
  /// reached, or the receiver has gone silent.
  public var locationUnavailable: Bool
  /// The process may not open the device (`EACCES`: add the user to `dialout`).
  public var authorizationDenied: Bool
  /// The location's horizontal accuracy is worse than the configuration's
  /// ``LiveConfiguration/desiredAccuracy``, or unknown. The location is delivered all the same.
  public var accuracyLimited: Bool

  public init(
    location: Location?, isStationary: Bool = false, locationUnavailable: Bool = false, authorizationDenied: Bool = false,
    accuracyLimited: Bool = false
  ) {
    self.location = location
    self.isStationary = isStationary
    self.locationUnavailable = locationUnavailable
    self.authorizationDenied = authorizationDenied
    self.accuracyLimited = accuracyLimited
  }
}
