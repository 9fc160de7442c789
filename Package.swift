// swift-tools-version:6.1
import PackageDescription

// gpsbridge: GPS receivers on Linux as composable, testable location events. MIT licensed (see
// LICENSE), as composable-core-location, whose LocationManager it modernises; its version is
// written once, in Sources/Plumbing/Release.swift.
// The design card allows no package dependencies: everything here is built from the
// toolchain's own modules (see DESIGN.md in the project's shared folder). The one optional
// extra is the system libgps, behind the `libgps` trait (off by default): `swift build
// --traits libgps` with Debian's libgps-dev installed.
let package = Package(
  name: "gpsbridge",
  products: [
    .library(name: "NMEA", targets: ["NMEA"]),
    .library(name: "Framing", targets: ["Framing"]),
    .library(name: "NMEASimulation", targets: ["NMEASimulation"]),
    .library(name: "GPSD", targets: ["GPSD"]),
    .library(name: "GPSLocation", targets: ["GPSLocation"]),
    .library(name: "GPSLocationTestSupport", targets: ["GPSLocationTestSupport"]),
    .library(name: "GPSDServer", targets: ["GPSDServer"]),
    .library(name: "TimeService", targets: ["TimeService"]),
    .library(name: "Station", targets: ["Station"]),
    .library(name: "ReceiverSetup", targets: ["ReceiverSetup"]),
    .library(name: "StatusService", targets: ["StatusService"]),
    .library(name: "Corrections", targets: ["Corrections"]),
    .library(name: "Automation", targets: ["Automation"]),
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
    // The binary protocols a receiver interleaves with its NMEA (UBX, RTCM 3): their frames,
    // and the splitter that takes them out of the byte stream in stage order, the NMEA
    // framer last. Stdlib only.
    .target(name: "Framing"),
    // A deterministic receiver simulator: routes of legs, a sky, receiver profiles, and a
    // writer that formats and checksums sentences. Feeds the demo, benchmarks and tests.
    .target(name: "NMEASimulation", dependencies: ["NMEA", "Framing", "Plumbing"]),
    // gpsd's JSON protocol: requests, typed reports, and reports to the same `Fix`.
    .target(name: "GPSD", dependencies: ["NMEA", "Plumbing", "Geomagnetism", "Trigonometry"]),
    // Shared plumbing users never call (package access only): the C library imported once,
    // POSIX wrappers over per-syscall shims, a lock, the broadcaster, a JSON byte writer.
    .target(name: "Plumbing"),
    // The few C maths functions the engine needs, so that the engine imports no C library, and
    // the ellipsoid distance made of them.
    .target(name: "Trigonometry"),
    // The World Magnetic Model (WMM2025): the magnetic declination where a receiver gives
    // none. Pure: a coefficient table and its spherical-harmonic sum.
    .target(name: "Geomagnetism", dependencies: ["NMEA", "Trigonometry"]),
    // What a source says about itself: may it be read (authorization), and what went wrong
    // (SourceError). Pure values, shared by the transports that report them and the engine
    // that passes them on.
    .target(name: "SourceStatus"),
    // The LocationManager interface (a struct of closures, its actions, errors and commands),
    // its models, and the pure engine behind it: fixes, commands and time in, actions out. No
    // I/O, no C library, no Dispatch, no Foundation.
    .target(name: "GPSLocationEngine", dependencies: ["Framing", "NMEA", "SourceStatus", "Trigonometry", "Geomagnetism"]),
    // Byte sources (serial with autobaud and hotplug, gpsd, captures, the simulator) and the
    // pipeline that makes one receiver's bytes into events for any number of listeners.
    .target(
      name: "Transports",
      dependencies: [
        "NMEA", "Framing", "NMEASimulation", "GPSD", "Plumbing", "SourceStatus", "Trigonometry",
        .target(name: "CLibGPS", condition: .when(traits: ["libgps"])),
      ]
    ),
    // The public API: LocationManager's live, replay and simulated values over the transports
    // and the engine.
    .target(name: "GPSLocation", dependencies: ["GPSLocationEngine", "Transports", "SourceStatus", "NMEA", "NMEASimulation", "Plumbing"]),
    // gpsd's client library, for the `libgps` trait only: a module map and a shim header that
    // is the one place libgps's version-dependent structs are read.
    .systemLibrary(name: "CLibGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
    // Time for the system clock: samples from a receiver's epochs and pulses, and the reference
    // clocks chrony and ntpd read them from (chrony's SOCK, NTP shared memory).
    .target(name: "TimeService", dependencies: ["Framing", "NMEA", "Transports", "Plumbing", "CClockState"]),
    // gpsd's protocol served to gpsd's clients: sockets, clients, watch state, and feeds from
    // the transports' pipelines.
    .target(name: "GPSDServer", dependencies: ["Framing", "GPSD", "NMEA", "Transports", "SourceStatus", "Plumbing"]),
    // The box's receivers: the one policy for which source, the receivers served (named,
    // found by a pattern as they are plugged in, up to a limit), and each one's time feed.
    // What serves them is the caller's: `serve` hands each to a GPSDServer.
    .target(name: "Station", dependencies: ["Transports", "TimeService", "GPSD", "NMEASimulation", "Plumbing", "Trigonometry"]),
    // RTK corrections: NTRIP in (1 and 2), RTCM 3 checked frame by frame and written to the
    // receiver through its two-way session, the receiver's GGA sent up when the caster wants it.
    .target(name: "Corrections", dependencies: ["Framing", "NMEA", "Transports", "Plumbing", "Trigonometry"]),
    // Regions and visits out to where people automate: MQTT 3.1.1 (a hand-written publisher),
    // Home Assistant's device tracker, and the actions as JSON lines on a topic.
    // Webhooks POST through the system's libcurl, loaded only when `--webhook` is given (never
    // linked); its variadic calls go through these few lines of C.
    .target(name: "Automation", dependencies: ["GPSLocation", "Plumbing", "CURLCalls"]),
    .target(name: "CURLCalls"),
    // Whether the kernel holds the system clock synchronised (adjtimex, read only): sys/timex.h
    // is not in Swift's Glibc module.
    .target(name: "CClockState"),
    // The box you can see: the status page (Server-Sent Events), Prometheus metrics and
    // /status.json over a small hand-written HTTP server, and the systemd watchdog's health.
    .target(
      name: "StatusService",
      dependencies: ["Framing", "GPSDServer", "Station", "TimeService", "Corrections", "Transports", "NMEA", "SourceStatus", "Plumbing"]),
    // Setting a receiver up, safely: its settings changed as a transaction that rolls back
    // (identify, snapshot, apply in RAM, verify twice, keep or restore), over the receiver's
    // two-way session: u-blox (generation 9 and 10, M8 and older), MediaTek, SiRF.
    // (GPSLocationEngine for a live configuration's activity, as a dynamic model.)
    .target(name: "ReceiverSetup", dependencies: ["Framing", "NMEA", "Transports", "Plumbing", "GPSLocationEngine"]),
    // Test values that fail the running test; kept apart so the library never links Testing.
    .target(name: "GPSLocationTestSupport", dependencies: ["GPSLocation", "Plumbing"]),
    .executableTarget(
      name: "gpsbridge",
      // Library products only: the command line is a program over the public API, as anyone's
      // could be (Scripts/check-public-api builds it from a package of its own to hold that).
      dependencies: [
        "GPSLocation", "NMEA", "NMEASimulation", "GPSD", "GPSDServer", "TimeService", "Station", "ReceiverSetup", "StatusService",
        "Corrections", "Automation",
      ]),

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
      name: "monitor-benchmark",
      dependencies: ["GPSLocation", "NMEASimulation"],
      path: "Benchmarks/MonitorBenchmark"
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
      name: "automation-benchmark",
      dependencies: ["Automation", "GPSLocation", "Plumbing"],
      path: "Benchmarks/AutomationBenchmark"
    ),
    .executableTarget(
      name: "corrections-benchmark",
      dependencies: ["Corrections", "Framing", "Transports", "Plumbing"],
      path: "Benchmarks/CorrectionsBenchmark"
    ),
    .executableTarget(
      name: "framing-benchmark",
      dependencies: ["Framing", "Transports", "Plumbing"],
      path: "Benchmarks/FramingBenchmark"
    ),
    .executableTarget(
      name: "serial-latency",
      dependencies: ["GPSLocation", "NMEA", "Plumbing"],
      path: "Benchmarks/SerialLatency"
    ),
    .executableTarget(
      name: "nmea-latency",
      dependencies: ["Station", "Transports", "GPSD", "NMEA", "NMEASimulation", "Plumbing"],
      path: "Benchmarks/NMEALatency"
    ),

    .testTarget(name: "FramingTests", dependencies: ["Framing", "NMEASimulation", "TestHelpers"]),
    .testTarget(name: "NMEATests", dependencies: ["NMEA", "NMEASimulation", "MallocCounter", "TestHelpers"]),
    .testTarget(name: "NMEASimulationTests", dependencies: ["NMEASimulation", "NMEA", "Framing", "TestHelpers"]),
    .testTarget(name: "PlumbingTests", dependencies: ["Plumbing", "GPSLocationTestSupport", "TestHelpers"]),
    .testTarget(name: "GPSDTests", dependencies: ["GPSD", "NMEA", "TestHelpers"]),
    .testTarget(name: "GeomagnetismTests", dependencies: ["Geomagnetism", "NMEA", "GPSLocationEngine", "GPSD", "TestHelpers"]),
    .testTarget(
      name: "GPSDServerTests",
      dependencies: [
        "Framing", "GPSDServer", "GPSD", "GPSLocation", "NMEA", "NMEASimulation", "TestHelpers", "Plumbing", "Transports", "TimeService",
      ],
      exclude: ["Clients", "Support/replacing-gpsd.sh"]),
    .testTarget(name: "GPSLocationEngineTests", dependencies: ["GPSLocationEngine", "NMEA", "NMEASimulation", "TestHelpers"]),
    .testTarget(
      name: "ReceiverSetupTests",
      dependencies: ["ReceiverSetup", "Framing", "NMEA", "Transports", "NMEASimulation", "TestHelpers", "Plumbing"]),
    .testTarget(
      name: "StationTests",
      dependencies: [
        "Station", "TimeService", "GPSDServer", "GPSD", "Transports", "NMEASimulation", "GPSLocation", "TestHelpers", "Plumbing",
      ]),
    .testTarget(
      name: "StatusServiceTests",
      dependencies: [
        "StatusService", "GPSDServer", "Station", "TimeService", "Transports", "NMEA", "NMEASimulation", "TestHelpers", "Plumbing",
      ],
      exclude: ["Browser"]),
    .testTarget(
      name: "CorrectionsTests",
      dependencies: ["Corrections", "Framing", "NMEA", "NMEASimulation", "Transports", "TestHelpers", "Plumbing", "GPSLocation"],
      exclude: ["Casters"]),
    .testTarget(
      name: "AutomationTests", dependencies: ["Automation", "GPSLocation", "TestHelpers", "Plumbing"], exclude: ["Clients"]),
    .testTarget(name: "TimeServiceTests", dependencies: ["Framing", "TimeService", "Transports", "NMEA", "TestHelpers", "Plumbing"]),
    .testTarget(
      name: "TransportsTests", dependencies: ["Framing", "Transports", "TestHelpers", "Plumbing", "NMEA", "NMEASimulation", "SourceStatus"]),
    .testTarget(
      name: "GPSLocationTests", dependencies: ["GPSLocation", "GPSLocationTestSupport", "NMEASimulation", "TestHelpers", "Plumbing"]),
    .testTarget(
      name: "gpsbridgeTests",
      dependencies: ["gpsbridge", "GPSLocation", "Station", "NMEA", "NMEASimulation", "GPSD", "TestHelpers", "Plumbing"]),
    // Real pseudo-terminals and a real gpsd (via gpsfake) for the tests above.
    .target(name: "TestHelpers", dependencies: ["NMEASimulation", "Plumbing"], path: "Tests/TestHelpers"),
  ],
  swiftLanguageModes: [.v6]
)
