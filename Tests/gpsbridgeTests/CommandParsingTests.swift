import GPSD
import GPSLocation
import NMEASimulation
import Station
import Testing

@testable import gpsbridge

/// `parse` is a pure function: arguments in, a command or a usage error out.
@Suite struct CommandParsingTests {
  @Test func noArgumentsRunsTheDefault() throws {
    #expect(try parse([]) == .run(RunOptions()))
  }

  @Test func sourcesAndOptions() throws {
    var options = RunOptions()
    options.source = .replay(path: "drive.nmea", speed: .max)
    options.json = true
    options.heading = true
    options.visits = true
    options.regions = [Region(identifier: "home", center: LocationCoordinate2D(latitude: 47.3769, longitude: 8.5417), radius: 100)]
    options.distanceFilter = 10
    #expect(
      try parse([
        "--replay", "drive.nmea", "--speed", "max", "--json", "--heading", "--visits", "--region", "home,47.3769,8.5417,100",
        "--distance-filter", "10",
      ]) == .run(options))
  }

  @Test(arguments: [
    (["--gpsd"], SourceChoice.gpsd(.standard)),
    (["--gpsd", "gps.local"], .gpsd(GPSDAddress(host: "gps.local"))),
    (["--gpsd", "10.0.0.2:3000"], .gpsd(GPSDAddress(host: "10.0.0.2", port: 3000))),
    (["--gpsd", "[::1]:2948"], .gpsd(GPSDAddress(host: "::1", port: 2948))),
    (["--gpsd", ":2948"], .gpsd(GPSDAddress(host: "127.0.0.1", port: 2948))),
    (["--gpsd", "--json"], .gpsd(.standard)),
    (["--device", "/dev/ttyACM0"], .device(path: "/dev/ttyACM0", baud: .automatic)),
    (["--device", "/dev/ttyUSB0", "--baud", "4800"], .device(path: "/dev/ttyUSB0", baud: .fixed(4800))),
    (["--replay", "-", "--speed", "2.5"], .replay(path: "-", speed: .multiplied(by: 2.5))),
    (["--replay", "x.nmea", "--speed", "1"], .replay(path: "x.nmea", speed: .realTime)),
  ])
  func sourceChoices(_ arguments: [String], _ source: SourceChoice) throws {
    guard case .run(let options) = try parse(arguments) else {
      Issue.record("not a run command")
      return
    }
    #expect(options.source == source)
  }

  @Test(arguments: [
    (["--bogus"], "Unknown option '--bogus'."),
    (
      ["serve", "--port", "2948"],
      "Unknown option '--port' for 'serve'. gpsd's -S/--port is --listen ADDRESS:PORT here, like --listen 127.0.0.1:2948."
    ),
    (["drive.nmea"], "Unexpected argument 'drive.nmea'. To replay a capture, use --replay drive.nmea."),
    (["--device", "/dev/a", "--replay", "b"], "Choose one source: --device, --gpsd, --replay or --demo."),
    (["--baud", "9600"], "--baud applies to --device only."),
    (
      ["--device", "/dev/a", "--baud", "1234"],
      "--baud takes 'auto' or one of 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600; got '1234'."
    ),
    (["--replay", "x", "--speed", "0"], "--speed takes a positive number (2 is twice real time) or 'max'; got '0'."),
    (["--region", "home,47,8"], "--region takes ID,LAT,LON,RADIUS, like home,47.3769,8.5417,100; got 'home,47,8'."),
    (
      ["--region", "home,95,8,10"],
      "--region 'home': the centre (95.0, 8.0) is not on Earth: latitude must be within ±90 and longitude within ±180."
    ),
    (["--region", "home,47,8,-5"], "--region 'home': the radius -5.0 m is not a positive number of metres."),
    (["--distance-filter", "far"], "--distance-filter takes a distance in metres, like 10; got 'far'."),
    (["--replay"], "--replay needs a value."),
    (["--gpsd", "host:99999"], "--gpsd takes HOST[:PORT] (IPv6 in brackets, a port of 1–65535); got 'host:99999'."),
    (["check"], "Missing the capture file to check."),
    (["record", "--device", "/dev/a"], "Missing --output FILE: where to write the capture."),
    (["record", "--replay", "x", "-o", "y"], "Unknown option '--replay' for 'record'."),
    (["record", "--speed", "2", "-o", "y"], "Unknown option '--speed' for 'record'."),
    (["simulate", "--profile", "garmin"], "--profile takes one of ublox, ublox8, mtk, sirf, gga, marine, rtk; got 'garmin'."),
    (["simulate", "--rate", "100"], "--rate takes epochs per second from 0.1 to 50, like 10; got '100'."),
    (["devices", "--bogus"], "Unknown option '--bogus' for 'devices'."),
    (["check", "a.nmea", "b.nmea"], "'check' takes one file; 'b.nmea' is one too many."),
    (
      ["help", "nothing"],
      "No help for 'nothing'. The commands are devices, record, serve, configure, check, simulate, time, ntrip, completion."
    ),
    (
      ["help", "sevre"],
      "No help for 'sevre'. Did you mean 'serve'? The commands are devices, record, serve, configure, check, simulate, time, ntrip, completion."
    ),
    (["--devcie", "/dev/a"], "Unknown option '--devcie'. Did you mean '--device'?"),
    (["serve", "--lisen", "127.0.0.1"], "Unknown option '--lisen' for 'serve'. Did you mean '--listen'?"),
    (["--device=/dev/a"], "Unknown option '--device=/dev/a'. Give its value after a space: --device /dev/a."),
    (["simlate"], "Unknown command 'simlate'. Did you mean 'simulate'?"),
    (["serve", "--device", "/dev/a", "--loop"], "--loop plays a capture again: it goes with --replay FILE."),
    (["serve", "--replay", "-", "--loop"], "--loop cannot play standard input again: it is read once. Give --replay a file."),
    (
      ["serve", "--gpsd"],
      "--gpsd 127.0.0.1:2947 is where this server listens itself: it would read its own output and serve it again. Name the other gpsd's address, or move this server with --listen, like --listen 127.0.0.1:2948."
    ),
    (
      ["serve", "--gpsd", "localhost:3000", "--listen", "0.0.0.0:3000"],
      "--gpsd localhost:3000 is where this server listens itself: it would read its own output and serve it again. Name the other gpsd's address, or move this server with --listen, like --listen 127.0.0.1:3001."
    ),
    (["devcies"], "Unknown command 'devcies'. Did you mean 'devices'?"),
    (
      ["drive"],
      "Unknown command 'drive'. The commands are devices, record, serve, configure, check, simulate, time, ntrip, completion, help; to replay a capture, use --replay drive."
    ),
    (["--device", "/dev/a", "--device", "/dev/b"], "--device is given twice: only 'serve' takes several receivers."),
    (
      ["serve"] + ["/dev/a", "/dev/b", "/dev/c", "/dev/d", "/dev/e"].flatMap { ["--device", $0] },
      "serve takes at most 4 receivers: gpsd's clients (libgps 3.22) hang on a longer device list."
    ),
    (
      ["serve", "--replay", "x", "--chrony", "/run/c.sock"],
      "--chrony and --ntp-shm need a receiver on a serial port (--device): only its bytes arrive in time with the second."
    ),
    (["serve", "--device", "/dev/a", "--pps", "dcd"], "--pps feeds the refclocks of --chrony or --ntp-shm: name one."),
    (
      ["record", "--device", "/dev/ttyUSB*"],
      "--device '/dev/ttyUSB*' has wildcards: only 'serve' takes several receivers; name one ('gpsbridge devices' lists them)."
    ),
    (
      ["serve", "--device", "/dev/*/gps0"],
      "--device '/dev/*/gps0' has wildcards before its last part; only the device's own name may have them, like /dev/serial/by-id/*u-blox*."
    ),
    (
      ["serve", "--device", "/dev/a", "--chrony", "/run/c.sock", "--pps", "dcd", "--pps", "cts"],
      "--pps is given 2 times for 1 --device: the n-th --pps is the n-th receiver's."
    ),
    (
      ["serve", "--device", "/dev/ttyUSB*", "--chrony", "/run/c.sock", "--pps", "/dev/pps0"],
      "--pps /dev/pps0 cannot be the pulse of every receiver '/dev/ttyUSB*' matches: give dcd or cts (each receiver's own line)."
    ),
    (["simulate", "--live"], "--live plays in step with the clock, so it needs --pty <link>."),
    (["simulate", "--jam", "10", "--spoof", "20"], "--jam and --spoof are one attack each: give one of them."),
    (["simulate", "--spoof", "soon"], "--spoof takes the seconds into the drive it starts at, like 20; got 'soon'."),
    (["simulate", "--rtcm", "--jam", "5"], "--rtcm writes a reference station's corrections: it takes no --jam or --spoof."),
    (
      ["--mqtt", "mqtt://broker.lan/fleet/+"],
      "--mqtt takes mqtt://[USER:PASSWORD@]HOST[:PORT]/PREFIX, like mqtt://localhost/gpsbridge; 'mqtt://broker.lan/fleet/+': its topic prefix 'fleet/+' has a wildcard (+ or #), which MQTT allows only in subscriptions."
    ),
    (
      ["--mqtt", "http://broker.lan/a"],
      "--mqtt takes mqtt://[USER:PASSWORD@]HOST[:PORT]/PREFIX, like mqtt://localhost/gpsbridge; 'http://broker.lan/a': it is not mqtt://[USER:PASSWORD@]HOST[:PORT]/PREFIX."
    ),
    (
      ["--mqtt", "mqtts://van7:s3cret@broker.example.org:8883/fleet"],
      "--mqtt takes mqtt://[USER:PASSWORD@]HOST[:PORT]/PREFIX, like mqtt://localhost/gpsbridge; 'mqtts://…@broker.example.org:8883/fleet':"
        + " gpsbridge does not speak TLS (mqtts://) itself: publish to a Mosquitto on this machine (mqtt://localhost/PREFIX)"
        + " that bridges to the TLS broker, as the documentation's 'A fleet of boxes' (AFleetOfBoxes.md) shows."
    ),
    (
      ["--ntrip", "http://user:pw@caster.example.org:2101/BASE1"],
      "--ntrip takes ntrip://[USER:PASSWORD@]HOST[:PORT]/MOUNTPOINT, like ntrip://caster.example.org:2101/BASE1; 'http://…@caster.example.org:2101/BASE1' is a web address: write ntrip:// instead of http:// (gpsbridge asks as NTRIP 2, which is HTTP, either way)."
    ),
    (
      ["--ntrip", "ntrip://caster.example.org:2101"],
      "--ntrip takes ntrip://[USER:PASSWORD@]HOST[:PORT]/MOUNTPOINT, like ntrip://caster.example.org:2101/BASE1; 'ntrip://caster.example.org:2101' names no mountpoint: 'gpsbridge ntrip HOST[:PORT]' lists the caster's."
    ),
    (["--mqtt-interval", "5"], "--mqtt-interval goes with --mqtt: give --mqtt too."),
    (["serve", "--ntrip-gga", "5"], "--ntrip-gga goes with --ntrip: give --ntrip too."),
    (
      ["serve", "--webhook", "ftp://ha.lan/hook"],
      "--webhook takes an http or https URL, like https://ha.example.org/api/webhook/ID; got 'ftp://ha.lan/hook'."
    ),
    (
      ["--ntrip", "ntrip://caster.lan/BASE1", "--replay", "drive.nmea"],
      "--ntrip sends corrections to a receiver on a serial port, which can be written to: give --device PATH."
    ),
  ])
  func usageErrorsSayWhatIsWrong(_ arguments: [String], _ message: String) {
    #expect(throws: UsageError.self) { try parse(arguments) }
    do {
      _ = try parse(arguments)
    } catch {
      #expect(error.message == message)
    }
  }

  @Test func viaLibGPSNeedsTheTraitAndGPSD() throws {
    #if libgps
      var options = RunOptions()
      options.source = .gpsd(.standard)
      options.viaLibGPS = true
      #expect(try parse(["--gpsd", "--via", "libgps"]) == .run(options))
      #expect(throws: UsageError(message: "--via libgps reads gpsd: give --gpsd [HOST[:PORT]] too.")) { try parse(["--via", "libgps"]) }
    #else
      #expect(
        throws: UsageError(
          message: "--via libgps needs a build with the libgps trait: install libgps-dev, then swift build --traits libgps.")
      ) { try parse(["--gpsd", "--via", "libgps"]) }
    #endif
    #expect(throws: UsageError(message: "--via takes 'json' or 'libgps'; got 'soap'.")) { try parse(["--gpsd", "--via", "soap"]) }
  }

  @Test func subcommands() throws {
    #expect(try parse(["devices", "/dev/gps0", "--json"]) == .devices(DevicesOptions(paths: ["/dev/gps0"], json: true)))
    #expect(try parse(["check", "x.nmea"]) == .check(CheckOptions(path: "x.nmea", json: false)))
    #expect(
      try parse(["record", "--device", "/dev/ttyUSB0", "-o", "x.nmea", "--duration", "60"])
        == .record(RecordOptions(source: .device(path: "/dev/ttyUSB0", baud: .automatic), output: "x.nmea", duration: 60)))
    #expect(try parse(["record", "--gpsd", "-o", "-"]) == .record(RecordOptions(source: .gpsd(.standard), output: "-")))
    #expect(
      try parse(["simulate", "--profile", "rtk", "--duration", "60", "--pty", "/tmp/gps0"])
        == .simulate(SimulateOptions(profile: .rtk, duration: 60, pty: "/tmp/gps0")))
    #expect(
      try parse(["simulate", "--pty", "/tmp/gps0", "--live", "--spoof", "20"])
        == .simulate(SimulateOptions(pty: "/tmp/gps0", live: true, attack: Attack(.spoofing, at: 20))))
    #expect(try parse(["help", "record"]) == .help(.record))
    #expect(try parse(["check", "--help"]) == .help(.check))
    #expect(try parse(["simulate", "-h"]) == .help(.simulate))
    #expect(try parse(["--help"]) == .help(.main))
  }
}
