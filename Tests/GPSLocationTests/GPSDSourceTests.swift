import Foundation
import GPSD
import GPSLocation
import GPSLocationTestSupport
import NMEA
import Plumbing
import TestHelpers
import Testing

/// The gpsd source against a real gpsd fed by gpsfake. CI installs gpsd; elsewhere these
/// are skipped when gpsfake is missing (the skip says so). The time limit only catches a
/// hang: five gpsfake starts take 20 s on an idle machine and over a minute on a loaded one.
@Suite(
  .serialized, .timeLimit(.minutes(3)),
  .enabled(if: FakeGPSD.isAvailable, "gpsfake and gpspipe are not installed (Debian: gpsd gpsd-clients)"))
struct GPSDSourceTests {
  static let capturePath = fixturesDirectory.appendingPathComponent("sirf-nmea22-1hz.nmea").path
  static var fast: GPSDSource.Timing {
    var timing = GPSDSource.Timing()
    timing.reconnectMinimum = .milliseconds(100)
    timing.reconnectMaximum = .milliseconds(500)
    timing.silenceTimeout = .seconds(3)
    return timing
  }

  /// The NMEA path's locations for the same capture, by timestamp.
  static let nmeaLocations: [Date: Location] = {
    var decoder = FixDecoder()
    decoder.append(try! Data(contentsOf: URL(fileURLWithPath: capturePath)))
    decoder.finish()
    var result: [Date: Location] = [:]
    while let fix = decoder.next() {
      if let location = Location(fix) { result[location.timestamp] = location }
    }
    return result
  }()

  @Test func locationsMatchGPSDsOwnReportsAndTheNMEAPath() async throws {
    let gpsd = try await FakeGPSD.started(capture: Self.capturePath)
    defer { gpsd.stop() }
    // gpsd's own view first: gpspipe connects, which starts gpsfake's playback.
    // gpspipe runs until the manager has its locations (60 s is only a bound): it sees them all.
    let pipe = try gpsd.pipe(seconds: 60)
    let output = Pipe()
    pipe.standardOutput = output
    pipe.standardError = FileHandle.nullDevice
    try pipe.run()
    // What gpspipe prints, as it comes.
    let printed = Watched(Data())
    Thread.detachNewThread {
      while case let more = output.fileHandleForReading.availableData, !more.isEmpty { printed.withLock { $0 += more } }
    }
    // gpspipe gets its first TPV before the manager starts, however long a busy machine takes
    // to start it: both then see the same epochs of gpsfake's first pass over the capture.
    _ = await printed.until(timeout: .seconds(60)) { String(decoding: $0, as: UTF8.self).contains(#""class":"TPV""#) }

    let manager = LocationManager.gpsd(port: gpsd.port, timing: Self.fast)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    var received: [Location] = []
    var said: [String] = []  // what else the manager said, for a failure's message
    for await action in stream {
      if case .didUpdateLocations(let locations) = action { received += locations } else { said.append("\(action)") }
      if received.count >= 20 { break }
    }
    await manager.stopUpdatingLocation()
    // gpspipe, on a busy machine, can be many epochs behind the manager (a loaded run had it
    // eleven behind when it was stopped at once): it is stopped once it has printed the
    // manager's last epoch.
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let last = received.last.map { #""time":""# + formatter.string(from: $0.timestamp) + #"""# } ?? "none"
    _ = await printed.until(timeout: .seconds(30)) { String(decoding: $0, as: UTF8.self).contains(last) }
    let data = printed.value
    kill(pipe.processIdentifier, SIGKILL)  // gpspipe may not heed SIGTERM while it waits on gpsd
    _ = try await offThePool { pipe.waitForExit() }

    var gpsdTPVs: [Date: GPSDReport.TPV] = [:]
    for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
      if case .tpv(let tpv) = try? GPSDReport(line: Array(line.utf8)), let time = tpv.time, let stamp = UTCTimestamp(time),
        tpv.latitude != nil
      {
        // gpsd's early report of an epoch (no track yet) does not replace its full one.
        let date = Date(timeIntervalSince1970: stamp.secondsSince1970)
        if gpsdTPVs[date]?.course != nil, tpv.course == nil { continue }
        gpsdTPVs[date] = tpv
      }
    }
    #expect(received.count >= 20, "the manager said: \(said.suffix(5))")
    var comparedWithGPSD = 0
    for location in received {
      // This capture crosses midnight, and a busy gpsd now and then dates an epoch of the old
      // day with the new one (its date comes from the RMC, which may lag the GGA): that is
      // gpsd's date, passed on as it gave it, so the NMEA fix is found by time of day too.
      let nmea = try #require(
        Self.nmeaLocations[location.timestamp] ?? Self.nmeaLocations[location.timestamp.addingTimeInterval(-86_400)],
        "no NMEA fix at \(location.timestamp)")
      #expect(abs(location.coordinate.latitude - nmea.coordinate.latitude) < 1e-8)
      #expect(abs(location.coordinate.longitude - nmea.coordinate.longitude) < 1e-8)
      // A gpsd that the machine's load makes see a pause inside a burst reports the epoch
      // early: the GGA's position, a speed of gpsd's own making, no track. Only the position
      // is the receiver's then.
      if location.course < 0, nmea.course >= 0 { continue }
      #expect(
        abs(location.speed - nmea.speed) < 1e-3 && location.course == nmea.course,
        "\(location.timestamp): speed \(location.speed), course \(location.course); NMEA \(nmea.speed), \(nmea.course)")
      if let tpv = gpsdTPVs[location.timestamp] {
        comparedWithGPSD += 1
        #expect(location.coordinate.latitude == tpv.latitude && location.coordinate.longitude == tpv.longitude)
        // (Only gpsd's full report of the epoch carries the receiver's speed and track.)
        if tpv.course != nil { #expect(location.speed == tpv.speed && location.course == tpv.course) }
        // gpsd sometimes reports an epoch before its GGA arrived: no altitude then.
        // (The manager's connection and gpspipe's may see that at different epochs.)
        if let altitude = tpv.altitudeMSL ?? tpv.altitude, location.verticalAccuracy >= 0 {
          #expect(location.altitude == altitude && location.altitude == nmea.altitude)
        }
      }
    }
    #expect(comparedWithGPSD >= 10, "gpspipe and the source saw the same epochs")
  }

  @Test func gpsdRestartedFiveTimesPausesAndResumesTheSameSubscriber() async throws {
    let port = FakeGPSD.freePort()
    let restarts = try await Self.restartGPSD(5, port: port) { clock in
      .gpsd(port: port, timing: Self.fast, scheduler: Scheduler(clock: clock))
    }
    for (index, restart) in restarts.enumerated() {
      #expect(
        restart.paused && restart.lostMessage?.hasPrefix("Lost the connection to gpsd on 127.0.0.1:\(port)") == true,
        "restart \(index): \(restart.seen)")
      #expect(restart.resumed, "restart \(index): \(restart.seen)")
    }
  }

  /// What a subscriber saw each time gpsd was stopped and started again on `port`.
  struct Restart {
    var paused = false
    var lostMessage: String?
    var resumed = false
    /// What else happened, for a failure's message: other actions, and a gpsd that outlived
    /// its stop.
    var seen: [String] = []

    /// Locations since gpsd was stopped (or started again).
    var locations = 0

    mutating func note(_ action: LocationManager.Action) {
      if case .didUpdateLocations = action {
        locations += 1
        return
      }
      seen = Array((seen + ["\(action)"]).suffix(12))
    }
  }

  /// Runs the manager `makeManager` gives against gpsd on `port`, and once it has a location
  /// stops and restarts gpsd `count` times, each time waiting for the pause and the error,
  /// then for the resume and the next location. The manager's reconnection runs on a test
  /// clock: while gpsd is down it waits in its backoff, which passes once gpsd is up again,
  /// however long a busy machine took to start it.
  static func restartGPSD(_ count: Int, port: Int, _ makeManager: (TestClock) -> LocationManager) async throws -> [Restart] {
    var gpsd: FakeGPSD? = try await FakeGPSD.started(capture: capturePath, port: port, cycle: 0.05)
    defer { gpsd?.stop() }
    let clock = TestClock()
    let manager = makeManager(clock)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    var iterator = stream.makeAsyncIterator()
    while let action = await iterator.next() { if case .didUpdateLocations = action { break } }
    var restarts: [Restart] = []
    for _ in 0..<count {
      var restart = Restart()
      let stopping = ContinuousClock.now
      gpsd?.stop()
      // Slow steps are said, for a failure's message (a busy machine takes a second or two).
      if stopping.duration(to: .now) > .seconds(5) { restart.seen.append("stop() took \(stopping.duration(to: .now))") }
      if FakeGPSD.accepts(port: port) { restart.seen.append("gpsd still accepts after stop()") }
      while let action = await iterator.next() {
        restart.note(action)
        if case .didPauseLocationUpdates = action { restart.paused = true }
        if case .didFailWithError(let error) = action, restart.paused {
          restart.lostMessage = error.message
          break
        }
        // Locations a stopped gpsd cannot have sent: say so rather than wait on.
        if restart.locations > 200 {
          restart.seen.append("\(restart.locations) locations after gpsd was stopped")
          break
        }
      }
      restart.locations = 0
      let starting = ContinuousClock.now
      gpsd = try await FakeGPSD.started(capture: capturePath, port: port, cycle: 0.05)
      if starting.duration(to: .now) > .seconds(5) { restart.seen.append("started again after \(starting.duration(to: .now))") }
      // The backoff after "not running" (no longer than reconnectMaximum) ends now.
      await clock.waitForSleepers()
      clock.advance(by: fast.reconnectMaximum)
      while let action = await iterator.next() {
        restart.note(action)
        if case .didResumeLocationUpdates = action { restart.resumed = true }
        if case .didUpdateLocations = action, restart.resumed { break }
        // A gpsd without its receiver can give no location: said, rather than waited on.
        if case .didFailWithError(let error) = action, case .gpsdHasNoDevice = error.reason { break }
      }
      restarts.append(restart)
    }
    await manager.stopUpdatingLocation()
    return restarts
  }

  /// A gpsd started again may start its times over (a stand-in's, a replayed capture's): each
  /// connection is a new session, so its locations come again though their times were given.
  @Test func eachConnectionStartsTheTimesOver() async throws {
    let tpvs = (0..<3).map { second in
      #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2024-05-01T08:00:0\#(second).000Z","lat":47.3769,"lon":8.5417,"altMSL":410.0}"#
    }
    let server = try ScriptedServer(
      lines: [
        #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","activated":"2024-05-01T08:00:00.000Z"}]}"#,
      ] + tpvs, hangsUp: true)
    defer { server.stop() }
    let clock = TestClock()
    let manager = LocationManager.gpsd(port: server.port, timing: Self.fast, scheduler: Scheduler(clock: clock))
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    var seconds: [Int] = []
    for await action in stream {
      guard case .didUpdateLocations(let locations) = action else { continue }
      seconds += locations.map { Int($0.timestamp.timeIntervalSince1970) % 60 }
      // The first loss is retried at once; later ones wait on the test clock, which stays.
      if seconds.count == 6 { break }
    }
    #expect(seconds == [0, 1, 2, 0, 1, 2])
    await manager.stopUpdatingLocation()
  }

  /// A server that accepts and hangs up at once is a failed attempt from the second time on:
  /// the waits between connections double from the minimum to the maximum, never zero.
  @Test func aServerThatHangsUpAtOnceIsNotHammered() async throws {
    let server = try ScriptedServer(lines: [], hangsUp: true)
    defer { server.stop() }
    let clock = TestClock()
    let manager = LocationManager.gpsd(port: server.port, timing: Self.fast, scheduler: Scheduler(clock: clock))
    await manager.startUpdatingLocation()
    // 100 ms doubled to the 500 ms cap; the first loss is retried at once (a restarted gpsd).
    for wait in [100, 200, 400, 500, 500].map(Duration.milliseconds) {
      await clock.waitForSleeper(until: clock.now.advanced(by: wait))
      clock.advance(by: wait)
    }
    await clock.waitForSleeper(until: clock.now.advanced(by: .milliseconds(500)))
    #expect(server.connections == 7)
    await manager.stopUpdatingLocation()
  }

  /// A server that accepts and never speaks is not taken for a gpsd: the manager says so and
  /// tries again, rather than waiting on that connection forever.
  @Test func aServerThatNeverSpeaksIsSaidAndTriedAgain() async throws {
    let server = try ScriptedServer(lines: [])
    defer { server.stop() }
    var timing = Self.fast
    timing.bannerTimeout = .milliseconds(300)
    let manager = LocationManager.gpsd(port: server.port, timing: timing)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    let error = await firstFailure(stream)
    #expect(error?.reason == .gpsdSilent(address: "127.0.0.1:\(server.port)", seconds: 0))
    #expect(error?.message.contains("accepted the connection and sent nothing") == true)
    // Tried again: a second connection comes, however long a busy machine takes to make it.
    #expect(await eventually { server.connections >= 2 })
    await manager.stopUpdatingLocation()
  }

  @Test func aReceiverWithoutAFixIsReportedNotInvented() async throws {
    let capture = FileManager.default.temporaryDirectory.appendingPathComponent("nofix-\(getpid()).nmea")
    let lines = (0..<120).map { second -> String in
      let time = String(format: "1200%02d.00", second % 60)
      let body = "GPGGA,\(time),,,,,0,00,99.99,,,,,,"
      return "$\(body)*\(String(format: "%02X", body.utf8.reduce(0, ^)))\r\n"
    }
    try Data(lines.joined().utf8).write(to: capture)
    defer { try? FileManager.default.removeItem(at: capture) }
    let gpsd = try await FakeGPSD.started(capture: capture.path, cycle: 0.05)
    defer { gpsd.stop() }
    var timing = Self.fast
    timing.noFixTimeout = .seconds(2)
    let manager = LocationManager.gpsd(port: gpsd.port, timing: timing)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    var error: LocationManager.Error?
    var locations = 0
    for await action in stream {
      if case .didUpdateLocations = action { locations += 1 }
      // On a busy machine gpsfake may hand gpsd its device after the 2 s: that is said first,
      // and the missing fix two seconds after the device came.
      if case .didFailWithError(let failure) = action, failure.reason != .gpsdHasNoDevice(address: "127.0.0.1:\(gpsd.port)") {
        error = failure
        break
      }
    }
    #expect(locations == 0)
    #expect(error?.code == .locationUnknown)
    #expect(error?.reason == .gpsdHasNoFix(address: "127.0.0.1:\(gpsd.port)", seconds: 2))
    await manager.stopUpdatingLocation()
  }

  @Test func silenceOnAnOpenConnectionIsDetectedAndTheClientReconnects() async throws {
    // A server that answers like gpsd with a device, then says nothing more.
    let server = try ScriptedServer(lines: [
      #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
      #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","activated":"2024-05-01T08:00:00.000Z"}]}"#,
      #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2024-05-01T08:00:00.000Z","lat":47.3769,"lon":8.5417,"altMSL":410.0}"#,
    ])
    defer { server.stop() }
    var timing = Self.fast
    timing.silenceTimeout = .seconds(1)
    let clock = TestClock()
    let manager = LocationManager.gpsd(port: server.port, timing: timing, scheduler: Scheduler(clock: clock))
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    var sequence: [String] = []
    for await action in stream {
      switch action {
      case .didUpdateLocations:
        sequence.append("location")
        // A second of silence after the report, by the connection's clock.
        if sequence.count == 1 { clock.advance(by: .seconds(1)) }
      case .didPauseLocationUpdates: sequence.append("paused")
      case .didFailWithError(let error): sequence.append(error.message)
      case .didResumeLocationUpdates: sequence.append("resumed")
      default: break
      }
      if sequence.last == "resumed" { break }
    }
    #expect(
      sequence == [
        "location", "paused",
        "Lost the connection to gpsd on 127.0.0.1:\(server.port) (no report for 1.0 seconds). Check that gpsd runs (systemctl status gpsd). Reconnecting.",
        "resumed",
      ])
    await manager.stopUpdatingLocation()
  }

  @Test func gpsdNotRunningSaysSoAndIsNotEnabled() async throws {
    let port = FakeGPSD.freePort()
    let manager = LocationManager.gpsd(port: port, timing: Self.fast)
    #expect(await manager.locationServicesEnabled() == false)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    let error = await firstFailure(stream)
    #expect(error?.code == .network)
    #expect(
      error?.message
        == "gpsd is not running on 127.0.0.1:\(port) (connection refused). Start it (sudo systemctl start gpsd), or point --gpsd at HOST:PORT. Retrying."
    )
    await manager.stopUpdatingLocation()
  }
}
