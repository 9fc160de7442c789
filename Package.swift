// swift-tools-version:6.1
import PackageDescription

// gpsbridge: GPS receivers on Linux as composable, testable location events.
// The design card allows no package dependencies: everything here is built from the
// toolchain's own modules (see DESIGN.md in the project's shared folder). The one optional
// extra is the system libgps, behind the `libgps` trait (off by default): `swift build
// --traits libgps` with Debian's libgps-dev installed.
let package = Package(
  name: "gpsbridge",
  products: [
    .library(name: "NMEA", targets: ["NMEA"]),
    .library(name: "NMEASimulation", targets: ["NMEASimulation"]),
    .library(name: "GPSD", targets: ["GPSD"]),
    .library(name: "GPSLocation", targets: ["GPSLocation"]),
    .library(name: "GPSLocationTestSupport", targets: ["GPSLocationTestSupport"]),
    .library(name: "GPSDServer", targets: ["GPSDServer"]),
    .executable(name: "gpsbridge", targets: ["gpsbridge"]),
  ],
  traits: [
    .trait(
      name: "libgps", description: "Read gpsd through the system libgps (Debian: libgps-dev), as LocationManager.libgps and --via libgps"),
    .default(enabledTraits: []),
  ],
  targets: [
    // Bytes to sentences to typed messages to one `Fix` per receiver epoch. Stdlib only.
    .target(name: "NMEA"),
    // A deterministic receiver simulator: routes of legs, a sky, receiver profiles, and a
    // writer that formats and checksums sentences. Feeds the demo, benchmarks and tests.
    .target(name: "NMEASimulation", dependencies: ["NMEA", "Plumbing"]),
    // gpsd's JSON protocol: requests, typed reports, and reports to the same `Fix`.
    .target(name: "GPSD", dependencies: ["NMEA"]),
    // Shared plumbing users never call (package access only): the C library imported once,
    // POSIX wrappers over per-syscall shims, a lock, the broadcaster, a JSON byte writer.
    .target(name: "Plumbing"),
    // The public API: LocationManager, its pure engine and the transports.
    .target(
      name: "GPSLocation",
      dependencies: ["NMEA", "NMEASimulation", "GPSD", "Plumbing", .target(name: "CLibGPS", condition: .when(traits: ["libgps"]))]
    ),
    // gpsd's client library, for the `libgps` trait only: a module map and a shim header that
    // is the one place libgps's version-dependent structs are read.
    .systemLibrary(name: "CLibGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
    // gpsd's protocol served to gpsd's clients: reports, requests, watchers, and feeds that
    // turn a receiver, a capture or another gpsd into what they are served.
    .target(name: "GPSDServer", dependencies: ["GPSD", "NMEA", "NMEASimulation", "GPSLocation", "Plumbing"]),
    // Test values that fail the running test; kept apart so the library never links Testing.
    .target(name: "GPSLocationTestSupport", dependencies: ["GPSLocation", "Plumbing"]),
    .executableTarget(name: "gpsbridge", dependencies: ["GPSLocation", "NMEA", "NMEASimulation", "GPSD", "GPSDServer", "Plumbing"]),

    // Benchmarks are executables of their own, never part of a library product.
    .target(name: "MallocCounter", path: "Benchmarks/MallocCounter"),
    // The baseline every NMEA reader is measured against: a checksum-only scan, in C.
    .target(name: "ChecksumScan", path: "Benchmarks/ChecksumScan"),
    .executableTarget(name: "checksum-scan", dependencies: ["ChecksumScan"], path: "Benchmarks/ChecksumScanTool"),
    .executableTarget(
      name: "nmea-benchmark",
      dependencies: ["NMEA", "NMEASimulation", "MallocCounter", "ChecksumScan", "Plumbing"],
      path: "Benchmarks/NMEABenchmark"
    ),

    .executableTarget(
      name: "engine-benchmark",
      dependencies: ["GPSLocation", "NMEA", "Plumbing"],
      path: "Benchmarks/EngineBenchmark"
    ),
    .executableTarget(
      name: "live-recovery",
      dependencies: ["GPSLocation", "NMEASimulation", "Plumbing", "TestHelpers"],
      path: "Benchmarks/LiveRecovery"
    ),
    .executableTarget(
      name: "serve-benchmark",
      dependencies: ["TestHelpers"],
      path: "Benchmarks/ServeBenchmark"
    ),
    .executableTarget(
      name: "serial-latency",
      dependencies: ["GPSLocation", "NMEA", "Plumbing"],
      path: "Benchmarks/SerialLatency"
    ),

    .testTarget(name: "NMEATests", dependencies: ["NMEA", "NMEASimulation", "MallocCounter"]),
    .testTarget(name: "NMEASimulationTests", dependencies: ["NMEASimulation", "NMEA"]),
    .testTarget(name: "PlumbingTests", dependencies: ["Plumbing"]),
    .testTarget(name: "GPSDTests", dependencies: ["GPSD", "NMEA"]),
    .testTarget(
      name: "GPSDServerTests", dependencies: ["GPSDServer", "GPSD", "GPSLocation", "NMEA", "NMEASimulation", "TestHelpers", "Plumbing"],
      exclude: ["Clients"]),
    .testTarget(
      name: "GPSLocationTests", dependencies: ["GPSLocation", "GPSLocationTestSupport", "NMEASimulation", "TestHelpers", "Plumbing"]),
    .testTarget(
      name: "gpsbridgeTests", dependencies: ["gpsbridge", "GPSLocation", "NMEA", "NMEASimulation", "GPSD", "TestHelpers", "Plumbing"]),
    // Real pseudo-terminals and a real gpsd (via gpsfake) for the tests above.
    .target(name: "TestHelpers", dependencies: ["NMEASimulation", "Plumbing"], path: "Tests/TestHelpers"),
  ],
  swiftLanguageModes: [.v6]
)
