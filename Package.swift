// swift-tools-version:6.0
import PackageDescription

// gpsbridge: GPS receivers on Linux as composable, testable location events.
// The design card allows no package dependencies: everything here is built from the
// toolchain's own modules (see DESIGN.md in the project's shared folder).
let package = Package(
  name: "gpsbridge",
  products: [
    .library(name: "NMEA", targets: ["NMEA"]),
    .library(name: "GPSD", targets: ["GPSD"]),
    .library(name: "GPSLocation", targets: ["GPSLocation"]),
    .library(name: "GPSLocationTestSupport", targets: ["GPSLocationTestSupport"]),
    .executable(name: "gpsbridge", targets: ["gpsbridge"]),
  ],
  targets: [
    // Bytes to sentences to typed messages to one `Fix` per receiver epoch. Stdlib only.
    .target(name: "NMEA", linkerSettings: [.linkedLibrary("m")]),
    // gpsd's JSON protocol: requests, typed reports, and reports to the same `Fix`.
    .target(name: "GPSD", dependencies: ["NMEA"]),
    // The public API: LocationManager, its pure engine, the broadcaster and the transports.
    .target(name: "GPSLocation", dependencies: ["NMEA", "GPSD"]),
    // Test values that fail the running test; kept apart so the library never links Testing.
    .target(name: "GPSLocationTestSupport", dependencies: ["GPSLocation"]),
    .executableTarget(name: "gpsbridge", dependencies: ["GPSLocation", "NMEA"]),

    // Benchmarks are executables of their own, never part of a library product.
    .target(name: "MallocCounter", path: "Benchmarks/MallocCounter"),
    .executableTarget(
      name: "nmea-benchmark",
      dependencies: ["NMEA", "MallocCounter"],
      path: "Benchmarks/NMEABenchmark"
    ),

    .executableTarget(
      name: "engine-benchmark",
      dependencies: ["GPSLocation", "NMEA"],
      path: "Benchmarks/EngineBenchmark"
    ),
    .executableTarget(
      name: "serial-latency",
      dependencies: ["GPSLocation", "NMEA"],
      path: "Benchmarks/SerialLatency"
    ),

    .testTarget(name: "NMEATests", dependencies: ["NMEA"]),
    .testTarget(name: "GPSDTests", dependencies: ["GPSD", "NMEA"]),
    .testTarget(name: "GPSLocationTests", dependencies: ["GPSLocation", "GPSLocationTestSupport", "TestHelpers"]),
    .testTarget(name: "gpsbridgeTests", dependencies: ["gpsbridge", "GPSLocation", "NMEA", "TestHelpers"]),
    // Real pseudo-terminals and a real gpsd (via gpsfake) for the tests above.
    .target(name: "TestHelpers", path: "Tests/TestHelpers"),
  ],
  swiftLanguageModes: [.v6]
)
