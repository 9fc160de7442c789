import GPSLocationEngine
import NMEA
import Testing

@Suite struct RegionMonitorTests {
  let region = Region(identifier: "yard", center: base, radius: 100)

  @Test func startWithoutAFixIsUnknownThenDeterminedByTheFirstFix() {
    var engine = LocationEngine()
    #expect(engine.startMonitoring(region) == [.didStartMonitoring(region: region), .didDetermineState(.unknown, region: region)])
    #expect(engine.handle(fix(0, north: 500, speed: 10)) == [.didDetermineState(.outside, region: region)])
  }

  @Test func startWithAFixDeterminesAtOnceWithoutEntering() {
    var engine = LocationEngine()
    _ = engine.handle(fix(0, north: 20))
    #expect(engine.startMonitoring(region) == [.didStartMonitoring(region: region), .didDetermineState(.inside, region: region)])
  }

  /// A region started in a state known beforehand (a monitor's kept one) takes it at once and
  /// leaves it only after two fixes in a row say so: one stray fix is no crossing.
  @Test func aRegionStartedInAKnownStateLeavesItAfterTwoFixesThatSaySo() {
    var engine = LocationEngine()
    var actions: [LocationManager.Action] = []
    engine.perform(.startMonitoringForRegionAssuming(region, .inside), now: .zero, into: &actions)
    #expect(actions == [.didStartMonitoring(region: region), .didDetermineState(.inside, region: region)])
    #expect(engine.handle(fix(0, north: 300, speed: 10)).isEmpty)  // outside evidence starts: no first decision
    #expect(engine.handle(fix(1, north: 310, speed: 10)) == [.didExitRegion(region), .didDetermineState(.outside, region: region)])
  }

  /// Once a fix agrees with the known state, a change needs the whole dwell, as any transition.
  @Test func aKnownStateAFixAgreedWithChangesOnlyAfterTheDwell() {
    var engine = LocationEngine()
    var actions: [LocationManager.Action] = []
    engine.perform(.startMonitoringForRegionAssuming(region, .inside), now: .zero, into: &actions)
    #expect(engine.handle(fix(0, north: 300, speed: 10)).isEmpty)  // a stray fix outside,
    #expect(engine.handle(fix(1, north: 20, speed: 1)).isEmpty)  // then inside again
    #expect(engine.handle(fix(2, north: 300, speed: 10)).isEmpty)
    #expect(engine.handle(fix(3, north: 310, speed: 10)).isEmpty)  // 1 s: no longer enough
    #expect(engine.handle(fix(5, north: 330, speed: 10)) == [.didExitRegion(region), .didDetermineState(.outside, region: region)])
  }

  @Test func entryNeedsTheDwellAndEmitsEnterThenState() {
    var engine = LocationEngine()
    _ = engine.handle(fix(0, north: 500))
    _ = engine.startMonitoring(region)
    #expect(engine.handle(fix(1, north: 50, speed: 1.5)).isEmpty)  // inside evidence starts
    #expect(engine.handle(fix(4, north: 40, speed: 1.5)).isEmpty)  // 3 s: not yet, at a walk
    #expect(engine.handle(fix(6, north: 30, speed: 1.5)) == [.didEnterRegion(region), .didDetermineState(.inside, region: region)])
    #expect(engine.handle(fix(7, north: 30, speed: 1.5)).isEmpty)
  }

  @Test func fasterThanAWalkTheDwellIsShorter() {
    var engine = LocationEngine()
    _ = engine.handle(fix(0, north: 500, speed: 10))
    _ = engine.startMonitoring(region)
    #expect(engine.handle(fix(1, north: 80, speed: 10)).isEmpty)
    #expect(engine.handle(fix(2, north: 70, speed: 10)).isEmpty)
    #expect(engine.handle(fix(4, north: 50, speed: 10)) == [.didEnterRegion(region), .didDetermineState(.inside, region: region)])
  }

  @Test func aFixWithinTheMarginInterruptsTheDwell() {
    var engine = LocationEngine()
    _ = engine.handle(fix(0, north: 500, speed: 1.5))
    _ = engine.startMonitoring(region)
    #expect(engine.handle(fix(1, north: 50, speed: 1.5)).isEmpty)
    #expect(engine.handle(fix(3, north: 95, speed: 1.5)).isEmpty)  // back within the margin: starts over
    #expect(engine.handle(fix(6, north: 50, speed: 1.5)).isEmpty)
    #expect(engine.handle(fix(11, north: 50, speed: 1.5)) == [.didEnterRegion(region), .didDetermineState(.inside, region: region)])
  }

  @Test func jitterOnTheBoundaryDoesNotFlap() {
    var engine = LocationEngine()
    _ = engine.handle(fix(0))
    _ = engine.startMonitoring(region)
    // ±8 m around the edge with 5 m accuracy: never beyond the margin on the outside for 5 s.
    var actions: [LocationManager.Action] = []
    for second in 1...120 {
      let north = second % 2 == 0 ? 108.0 : 92.0
      actions += engine.handle(fix(Double(second), north: north, accuracy: 10))
    }
    #expect(actions.isEmpty)
  }

  @Test func exitAfterDwellOutsideTheMargin() {
    var engine = LocationEngine()
    _ = engine.handle(fix(0))
    _ = engine.startMonitoring(region)
    // Moving, a 5 m accuracy makes a 10 m margin (2σ).
    #expect(engine.handle(fix(1, north: 108, speed: 5)).isEmpty)  // within the margin: no evidence
    #expect(engine.handle(fix(2, north: 120, speed: 5)).isEmpty)
    #expect(engine.handle(fix(7, north: 130, speed: 5)) == [.didExitRegion(region), .didDetermineState(.outside, region: region)])
  }

  @Test func notifyFlagsSilenceEnterAndExitButNotTheState() {
    var engine = LocationEngine()
    var quiet = region
    quiet.notifyOnExit = false
    _ = engine.handle(fix(0))
    _ = engine.startMonitoring(quiet)
    _ = engine.handle(fix(1, north: 200, speed: 5))
    #expect(engine.handle(fix(6, north: 200, speed: 5)) == [.didDetermineState(.outside, region: quiet)])
  }

  @Test func sameIdentifierReplacesTheRegion() {
    var engine = LocationEngine()
    _ = engine.startMonitoring(region)
    var moved = region
    moved.radius = 50
    _ = engine.startMonitoring(moved)
    #expect(engine.monitoredRegions == [moved])
  }

  @Test(arguments: [
    Region(identifier: "zero", center: base, radius: 0),
    Region(identifier: "negative", center: base, radius: -5),
    Region(identifier: "huge", center: base, radius: 200_000),
    Region(identifier: "nan", center: LocationCoordinate2D(latitude: .nan, longitude: 8), radius: 10),
    Region(identifier: "pole", center: LocationCoordinate2D(latitude: 91, longitude: 8), radius: 10),
  ])
  func invalidRegionsFailToMonitor(_ bad: Region) throws {
    var engine = LocationEngine()
    let actions = engine.startMonitoring(bad)
    guard case .monitoringDidFail(let failed, let error) = try #require(actions.first) else {
      Issue.record("expected monitoringDidFail, got \(actions)")
      return
    }
    #expect(failed?.identifier == bad.identifier && error.code == .regionMonitoringFailure && actions.count == 1)
    #expect(engine.monitoredRegions.isEmpty)
  }

  @Test func requestStateAnswersForMonitoredRegionsAndFailsForOthers() {
    var engine = LocationEngine()
    _ = engine.handle(fix(0))
    _ = engine.startMonitoring(region)
    #expect(engine.requestState(for: region) == [.didDetermineState(.inside, region: region)])
    let other = Region(identifier: "other", center: base, radius: 10)
    if case .monitoringDidFail = engine.requestState(for: other).first {} else { Issue.record("expected a failure") }
  }

  @Test func tenThousandRegionsStillFindTheOnesNearby() {
    var engine = LocationEngine()
    _ = engine.handle(fix(0, north: -5000))
    for index in 0..<10_000 {
      let north = Double(index / 100) * 300, east = Double(index % 100) * 300
      let region = Region(
        identifier: "r\(index)",
        center: LocationCoordinate2D(latitude: 47 + north / metresPerDegree, longitude: 8 + east / (metresPerDegree * 0.6819983600624985)),
        radius: 50)
      _ = engine.startMonitoring(region)
    }
    // Walk into region r101 (north 300 m, east 300 m) and stay.
    var entered: [String] = []
    for second in 1...10 {
      for action in engine.handle(fix(Double(second), north: 300, east: 300)) {
        if case .didEnterRegion(let region) = action { entered.append(region.identifier) }
      }
    }
    #expect(entered == ["r101"])
  }
}
