import Plumbing

/// The library as a whole.
public enum GPSBridge {
  /// This release's semantic version, as CHANGELOG.md lists it: what `gpsbridge --version`
  /// prints and what the gpsd banner's `rev` names.
  public static var version: String { Release.version }
  /// This release's date, `YYYY-MM-DD`, as CHANGELOG.md dates it.
  public static var releaseDate: String { Release.date }
}
