import Plumbing

/// The gpsd release of the client programs installed on this machine: what `serve` says it is.
///
/// xgps and cgps compare the server's `VERSION.release` with their own release, exactly, and
/// warn at every start when they differ ("gpsd version 3.22 (gpsbridge) different than
/// expected 3.22"); clients do not otherwise look at it. So the server speaks as the release
/// they were built with — found from Python's `gps` module (xgps, gpspipe's siblings), else
/// libgps's pkg-config file (cgps and C programs), else the Debian package of gpsd's clients —
/// and names itself in `rev`.
package enum InstalledRelease {
  /// The release to announce when nothing installed says one: Debian 12's.
  package static let fallback = "3.22"

  /// The installed clients' release, e.g. `3.22`, or `nil` when no client library is found.
  package static func find(reading read: (String) -> String? = readTextFile) -> String? {
    if let text = read("/usr/lib/python3/dist-packages/gps/__init__.py"), let release = pythonVersion(in: text) { return release }
    for directory in pkgConfigDirectories {
      if let text = read(directory + "/libgps.pc"), let release = pkgConfigVersion(in: text) { return release }
    }
    if let text = read("/var/lib/dpkg/status"), let release = debianVersion(of: "gpsd-clients", in: text) { return release }
    return nil
  }

  static let pkgConfigDirectories = [
    "/usr/lib/x86_64-linux-gnu/pkgconfig", "/usr/lib/aarch64-linux-gnu/pkgconfig", "/usr/lib/arm-linux-gnueabihf/pkgconfig",
    "/usr/lib/riscv64-linux-gnu/pkgconfig", "/usr/lib/i386-linux-gnu/pkgconfig", "/usr/lib/pkgconfig", "/usr/lib64/pkgconfig",
    "/usr/local/lib/pkgconfig", "/usr/share/pkgconfig",
  ]

  /// `__version__ = '3.22'` in the gps module's `__init__.py`.
  static func pythonVersion(in text: String) -> String? {
    for line in text.split(separator: "\n") where line.hasPrefix("__version__") {
      let quoted = line.split(whereSeparator: { $0 == "'" || $0 == "\"" })
      if quoted.count >= 2 { return plausible(String(quoted[1])) }
    }
    return nil
  }

  /// `Version: 3.22` in a pkg-config file.
  static func pkgConfigVersion(in text: String) -> String? {
    for line in text.split(separator: "\n") where line.hasPrefix("Version:") {
      return plausible(line.dropFirst("Version:".count).trimmingSpaces)
    }
    return nil
  }

  /// The upstream part of a package's version in dpkg's status file: `3.22` of `3.22-4.1+b1`.
  static func debianVersion(of package: String, in text: String) -> String? {
    for stanza in text.pieces(separatedBy: "\n\n") where !stanza.isEmpty {
      let lines = stanza.split(separator: "\n")
      guard lines.contains("Package: \(package)") else { continue }
      guard let version = lines.first(where: { $0.hasPrefix("Version:") }) else { return nil }
      var upstream = version.dropFirst("Version:".count).trimmingSpaces
      if let colon = upstream.firstIndex(of: ":") { upstream = String(upstream[upstream.index(after: colon)...]) }
      if let dash = upstream.lastIndex(of: "-") { upstream = String(upstream[..<dash]) }
      return plausible(upstream)
    }
    return nil
  }

  /// `3.22`, `3.25.1`: digits and dots only, so nothing odd is ever announced.
  static func plausible(_ text: String) -> String? {
    !text.isEmpty && text.count <= 16 && text.allSatisfy({ $0.isNumber || $0 == "." }) && text.first!.isNumber ? text : nil
  }

  /// The protocol minor version `release` speaks: 14 up to gpsd 3.22, 15 from 3.23.
  package static func protocolMinor(for release: String) -> Int {
    let parts = release.split(separator: ".").compactMap { Int($0) }
    guard parts.count >= 2 else { return 14 }
    return (parts[0], parts[1]) >= (3, 23) ? 15 : 14
  }

  /// A whole small text file, or `nil` when it cannot be read.
  package static func readTextFile(_ path: String) -> String? {
    guard let file = try? FileDescriptor.openForReading(path) else { return nil }
    defer { try? file.close() }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while bytes.count < 16 << 20, let count = try? file.read(into: &buffer), count > 0 { bytes += buffer.prefix(count) }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension Substring {
  fileprivate var trimmingSpaces: String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
  }
}
