import Testing

@testable import GPSDServer

/// The release `serve` announces: the installed clients' own, read from the files they come with.
struct InstalledReleaseTests {
  @Test func theReleaseIsReadFromPythonsModuleThenPkgConfigThenDpkg() {
    let python = "# gps module\n__version__ = '3.25'\n"
    let pkgConfig = "prefix=/usr\nName: libgps\nVersion: 3.22\n"
    let dpkg = "Package: gpsd\nVersion: 3.20-1\n\nPackage: gpsd-clients\nStatus: install ok installed\nVersion: 1:3.21-4.1+b1\n"
    func files(_ present: [String: String]) -> (String) -> String? { { path in present[path] } }
    #expect(InstalledRelease.find(reading: files(["/usr/lib/python3/dist-packages/gps/__init__.py": python])) == "3.25")
    #expect(InstalledRelease.find(reading: files(["/usr/lib/aarch64-linux-gnu/pkgconfig/libgps.pc": pkgConfig])) == "3.22")
    #expect(InstalledRelease.find(reading: files(["/var/lib/dpkg/status": dpkg])) == "3.21")
    #expect(InstalledRelease.find(reading: files([:])) == nil)
    #expect(InstalledRelease.find(reading: files(["/usr/lib/pkgconfig/libgps.pc": "Version: 3.22; rm -rf /\n"])) == nil)
  }

  @Test func theProtocolIsTheOneThatReleaseSpeaks() {
    #expect(InstalledRelease.protocolMinor(for: "3.22") == 14)
    #expect(InstalledRelease.protocolMinor(for: "3.25") == 15)
    #expect(InstalledRelease.protocolMinor(for: "3.9") == 14)
  }
}
