import GPSLocationEngine
import NMEA
import Testing

/// A receiver that states no speed (GGA only, or an epoch whose RMC was lost) still moves:
/// its location's speed is the distance from the location before over the time between, as
/// gpsd computes it, with an accuracy that says what such a speed is worth.
@Suite struct SpeedFromPositionsTests {
  @Test func aReceiverThatStatesNoSpeedGetsOneFromItsPositions() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    let first = locations(engine.handle(fix(0, speed: nil)))
    let second = locations(engine.handle(fix(2, north: 10, speed: nil)))
    #expect(first.map(\.speed) == [-1])
    // 10 m north in 2 s (to the test's round metre of latitude; the ellipsoid's is 0.02 % shorter).
    #expect(second.count == 1)
    #expect(abs((second.first?.speed ?? -1) - 5) < 0.01)
    // Each position is good to 5 m: over 2 s the speed is good to (5 + 5) / 2 m/s.
    #expect(second.first?.speedAccuracy == 5)
  }

  @Test func aSpeedTheReceiverStatesIsItsOwn() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    _ = engine.handle(fix(0, speed: nil))
    let location = locations(engine.handle(fix(1, north: 10, speed: 3))).first
    #expect(location?.speed == 3)
    #expect(location?.speedAccuracy == -1)
  }

  @Test func noSpeedIsMeasuredAcrossAnEpochWithoutAFix() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    _ = engine.handle(fix(0, speed: nil))
    _ = engine.handle(fix(1, hasFix: false))
    #expect(locations(engine.handle(fix(2, north: 10, speed: nil))).map(\.speed) == [-1])
  }

  /// A receiver standing still at 5 Hz whose positions scatter by a metre: its measured speed
  /// is that scatter (5 m/s), within its accuracy, so nothing that tells moving from still
  /// (visits, regions' dwell, live updates' stillness) takes it for motion.
  @Test func aSpeedWithinItsAccuracyDoesNotCountAsMoving() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    let still = (0..<10).flatMap { step in
      locations(engine.handle(fix(Double(step) * 0.2, north: step.isMultiple(of: 2) ? 0 : 1, speed: nil)))
    }
    #expect(still.dropFirst().allSatisfy { abs($0.speed - 5) < 0.01 && $0.speedAccuracy == 50 && $0.decisiveSpeed == -1 })
    let moving = locations(engine.handle(fix(2.2, north: 101, speed: nil)))
    // 100 m in 0.4 s, good to 25 m/s: motion.
    #expect(moving.first.map { abs($0.decisiveSpeed - 250) < 0.5 } == true)
  }

  /// An epoch whose position's accuracy is unknown (a handheld's GLL sent in a second of its
  /// own) gets its speed from the positions all the same, as gpsd gives it to its clients, and
  /// that speed's accuracy is unknown, as a receiver's own speed's is. Nothing can tell it
  /// from the positions' scatter, so it does not count as moving (a GLL-only receiver
  /// standing still would otherwise never be still).
  @Test func aPositionWithoutAnAccuracyGetsASpeedWhoseAccuracyIsUnknown() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    _ = engine.handle(fix(0, speed: nil))
    let location = locations(engine.handle(fix(1, north: 10, accuracy: -1, speed: nil))).first
    #expect(location.map { abs($0.speed - 10) < 0.01 } == true)
    #expect(location?.speedAccuracy == -1)
    #expect(location?.decisiveSpeed == -1)
    // A receiver's own speed without an accuracy counts as it is.
    let stated = locations(engine.handle(fix(2, north: 20, accuracy: -1, speed: 3))).first
    #expect(stated?.decisiveSpeed == 3)
  }

  /// A position from another place (a spliced capture): no speed of 10 km/s or more.
  @Test func aJumpNoReceiverCouldMakeGivesNoSpeed() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    _ = engine.handle(fix(0, speed: nil))
    #expect(locations(engine.handle(fix(1, north: 20_000, speed: nil))).map(\.speed) == [-1])
    #expect(locations(engine.handle(fix(2, north: 20_004, speed: nil))).map(\.speed).allSatisfy { abs($0 - 4) < 0.01 })
  }
}
