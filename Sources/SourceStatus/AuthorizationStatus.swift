/// May this process read its location source? The Linux meaning of `CLAuthorizationStatus`.
///
/// - ``notDetermined``: the source has not been tried yet.
/// - ``denied``: opening the device failed with EACCES/EPERM (the user is not in the
///   `dialout` group, or the udev rules are not installed); the accompanying error says how
///   to fix it.
/// - ``authorizedAlways``: the device opened, gpsd answered, or the source is a capture.
/// - ``restricted`` and ``authorizedWhenInUse`` exist so that code written for Apple
///   platforms compiles; no Linux source reports them.
public enum AuthorizationStatus: String, Hashable, Sendable, Codable {
  case notDetermined, restricted, denied, authorizedAlways, authorizedWhenInUse

  /// Whether locations may be delivered.
  public var isAuthorized: Bool { self == .authorizedAlways || self == .authorizedWhenInUse }
}

/// `CLAccuracyAuthorization`. A GPS receiver has no reduced-accuracy mode, so a Linux source
/// always reports ``fullAccuracy``.
public enum AccuracyAuthorization: String, Hashable, Sendable, Codable {
  case fullAccuracy, reducedAccuracy
}
