import Foundation
import GPSLocation
import GPSLocationTestSupport
import NMEA
import NMEASimulation
import Synchronization
import TestHelpers
import Testing

@Suite(.timeLimit(.minutes(3))) struct ReplayTests {
  static let capture = Capture.file(fixturesDirectory.appendingPathComponent("sirf-nmea22-1hz.nmea").path)

  static func run(speed: ReplaySpeed, configure: (LocationManager) async -> Void) async -> [LocationManager.Action] {
    let manager = LocationManager.replay(capture: capture, speed: speed)
    let stream = manager.delegate()
    await configure(manager)
    return await collect(stream) { if case .didFailWithError(let error) = $0 { error.code == .endOfCapture } else { false } }
  }

  @Test func replayIsAuthorizedAndPresentBeforeStarting() async {
    let manager = LocationManager.replay(capture: Self.capture)
    #expect(await manager.authorizationStatus() == .authorizedAlways)
    #expect(await manager.locationServicesEnabled())
    #expect(await LocationManager.replay(capture: .file("/nonexistent.nmea")).locationServicesEnabled() == false)
  }

  @Test func everyFixBecomesALocationAndTheEndIsReported() async throws {
    let actions = await Self.run(speed: .max) { await $0.startUpdatingLocation() }
    #expect(locations(actions).count == 56)  // 60 epochs, the first 4 without a fix
    #expect(!actions.contains(.didPauseLocationUpdates))  // the end is no pause: nothing went away
    guard case .didFailWithError(let error) = try #require(actions.last) else { return }
    #expect(error.message == "End of capture \(Self.capture): 60 epochs (56 with a position) from 300 sentences.")
  }

  /// A looped replay starts its times over each round: its locations come again, round after
  /// round, though each round's times are those the round before gave (a receiver's clock
  /// going back over given seconds gives none; a source opened again starts over).
  @Test func aLoopedReplayGivesItsLocationsEveryRound() async {
    let manager = LocationManager.source(ReplaySource(capture: Self.capture, speed: .max, loops: true, clock: ContinuousClock()))
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    var count = 0
    let actions = await collect(stream) { action in
      if case .didUpdateLocations(let locations) = action { count += locations.count }
      return count >= 3 * 56
    }
    let times = locations(actions).map(\.timestamp)
    #expect(times.count == 3 * 56)
    #expect(Array(times[56..<112]) == Array(times[0..<56]))
    await manager.stopUpdatingLocation()
  }

  @Test func theSameCaptureGivesTheSameActionsAtAnySpeed() async {
    let configure: (LocationManager) async -> Void = { manager in
      await manager.startMonitoringForRegion(
        Region(identifier: "harbour", center: LocationCoordinate2D(latitude: -33.8594, longitude: 151.2102), radius: 150))
      await manager.startUpdatingHeading()
      await manager.startUpdatingLocation()
    }
    let fastest = await Self.run(speed: .max, configure: configure)
    let fast = await Self.run(speed: .multiplied(by: 200), configure: configure)
    #expect(fastest == fast)
    #expect(fastest.contains { if case .didUpdateHeading = $0 { true } else { false } })
  }

  @Test func realTimePacingSpacesFixesByTheirTimes() async {
    let clock = TestClock()
    let receiver = Receiver(ReplaySource(capture: Self.capture, speed: .multiplied(by: 2), clock: clock))
    // Listeners run on the replay's own task, before it sleeps again: each fix is stamped
    // with the clock's time when it went out.
    let arrivals = Mutex<[(offset: Duration, fix: Fix)]>([])
    receiver.listen { event in
      if case .fix(let fix) = event { arrivals.withLock { $0.append((clock.now.offset, fix)) } }
    }
    let playing = Task { await receiver.run() }
    while arrivals.withLock({ $0.count }) < 5 {
      await clock.waitForSleepers()
      clock.advance(by: .milliseconds(100))
    }
    playing.cancel()
    let played = arrivals.withLock { $0 }
    // One second of capture between epochs, played at 2×: half a second apart on the clock.
    for (index, arrival) in played.enumerated() {
      #expect(arrival.offset == .milliseconds(500 * index), "epoch \(index) at \(arrival.fix.time)")
    }
  }

  @Test func requestLocationOnAReplayAnswersAndReleasesTheSource() async {
    // A clock that stands still: the request's 10 s timeout is the clock's, and a machine too
    // busy to play the capture within 10 s of wall time (twice in loaded full runs: "no fix
    // arrived within 10.0 seconds") must not answer it with a timeout.
    let manager = LocationManager.replay(capture: Self.capture, speed: .max, clock: TestClock())
    let stream = manager.delegate()
    await manager.requestLocation()
    // Until the answer, or the capture's end without one (then what came says why).
    let actions = await collect(stream) {
      switch $0 {
      case .didUpdateLocations, .didFailWithError: true
      default: false
      }
    }
    #expect(locations(actions).count == 1, "\(actions)")
    #expect(await manager.location() != nil)
  }

  @Test func aMissingCaptureEndsWithAClearError() async throws {
    let manager = LocationManager.replay(capture: .file("/nonexistent/drive.nmea"), speed: .max)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    let actions = await collect(stream) { if case .didFailWithError = $0 { true } else { false } }
    guard case .didFailWithError(let error) = try #require(actions.last) else { return }
    #expect(error.message.hasPrefix("Cannot read the capture /nonexistent/drive.nmea"))
  }

  @Test func aSlowReaderOfAFastReplayMissesNothing() async throws {
    // An hour's drive: more fixes than a subscriber buffers; a reader slower than the replay
    // must still see every one, in order.
    let simulation = Simulation(route: Route.demoDrive.lasting(3600), profile: .ublox)
    let manager = LocationManager.simulated(simulation, speed: .max)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    var times: [Date] = []
    for await action in stream {
      if case .didUpdateLocations(let locations) = action {
        times += locations.map(\.timestamp)
        // Fall far behind once: the replay must wait rather than drop what is unread.
        if times.count == 1 { try await Task.sleep(for: .milliseconds(600)) }
      }
      if case .didFailWithError = action { break }
    }
    var decoder = FixDecoder()
    decoder.append(simulation.capture())
    decoder.finish()
    var positions = 0
    while let fix = decoder.next() { if fix.hasPosition { positions += 1 } }
    #expect(positions > 1024 && times.count == positions)
    #expect(times == times.sorted())
  }
}
