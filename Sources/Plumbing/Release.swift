/// The release this build is: the one place its version is written. `gpsbridge --version`,
/// the gpsd banner's `rev`, the Debian package (`Scripts/package-deb`) and `Scripts/release`
/// (which checks it against CHANGELOG.md before tagging) all read it from here.
package enum Release {
  /// The semantic version of this release.
  package static let version = "0.1.0"
  /// The day it was released, as CHANGELOG.md dates it (and the manual pages).
  package static let date = "2026-11-25"
}
