#if libgps
  import Foundation
  import GPSLocation
  import Plumbing
  import TestHelpers
  import Testing

  /// The libgps path (`--traits libgps`) against a real gpsd via gpsfake: the same locations,
  /// the same recovery and the same errors as gpsbridge's own gpsd client.
  @Suite(.serialized, .timeLimit(.minutes(2)), .enabled(if: FakeGPSD.isAvailable, "gpsfake is not installed (Debian: gpsd gpsd-clients)"))
  struct LibGPSSourceTests {
    static let capturePath = GPSDSourceTests.capturePath

    /// The first `count` locations a manager gives, by timestamp.
    static func locations(_ manager: LocationManager, count: Int) async -> [Date: Location] {
      let stream = manager.delegate()
      await manager.startUpdatingLocation()
      var received: [Date: Location] = [:]
      for await action in stream {
        if case .didUpdateLocations(let locations) = action { for location in locations { received[location.timestamp] = location } }
        if received.count >= count { break }
      }
      await manager.stopUpdatingLocation()
      return received
    }

    @Test func libgpsGivesTheLocationsOfTheJSONClientAndTheNMEAPath() async throws {
      let gpsd = try await FakeGPSD.started(capture: Self.capturePath, cycle: 0.02)
      defer { gpsd.stop() }
      async let throughLibGPS = Self.locations(.libgps(port: gpsd.port, timing: GPSDSourceTests.fast), count: 25)
      async let throughJSON = Self.locations(.gpsd(port: gpsd.port, timing: GPSDSourceTests.fast), count: 25)
      let (libgps, json) = await (throughLibGPS, throughJSON)
      let common = Set(libgps.keys).intersection(json.keys)
      #expect(common.count >= 15, "\(common.count) epochs seen by both")
      for time in common.sorted() {
        let (ours, theirs) = (json[time]!, libgps[time]!)
        let nmea = try #require(GPSDSourceTests.nmeaLocations[time])
        #expect(ours.coordinate == theirs.coordinate && abs(theirs.coordinate.latitude - nmea.coordinate.latitude) < 1e-8, "\(time)")
        #expect(ours.speed == theirs.speed && ours.course == theirs.course, "\(time)")
        #expect(ours.altitude == theirs.altitude && ours.horizontalAccuracy == theirs.horizontalAccuracy, "\(time)")
      }
    }

    @Test func gpsdRestartedPausesAndResumesTheSameSubscriber() async throws {
      let port = FakeGPSD.freePort()
      let restarts = try await GPSDSourceTests.restartGPSD(3, port: port) { clock in
        .libgps(port: port, timing: GPSDSourceTests.fast, scheduler: Scheduler(clock: clock))
      }
      for (index, restart) in restarts.enumerated() {
        #expect(
          restart.paused && restart.lostMessage?.hasPrefix("Lost the connection to gpsd on 127.0.0.1:\(port)") == true, "restart \(index)")
        #expect(restart.resumed, "restart \(index)")
      }
    }

    @Test func gpsdNotRunningIsTheSameErrorAsTheJSONClients() async throws {
      let port = FakeGPSD.freePort()
      func firstError(_ manager: LocationManager) async -> LocationManager.Error? {
        let stream = manager.delegate()
        await manager.startUpdatingLocation()
        defer { Task { await manager.stopUpdatingLocation() } }
        for await action in stream { if case .didFailWithError(let error) = action { return error } }
        return nil
      }
      let libgps = await firstError(.libgps(port: port, timing: GPSDSourceTests.fast))
      let json = await firstError(.gpsd(port: port, timing: GPSDSourceTests.fast))
      #expect(libgps?.code == .network && libgps?.message == json?.message)
    }
  }
#endif
