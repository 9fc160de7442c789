import GPSLocation
import Testing

/// A manager built by hand: `LocationManager()` does nothing until given the endpoints a
/// preview or a test needs, and `.noop` is that manager.
@Suite struct HandMadeManagerTests {
  @Test func aNewManagerKnowsNothingAndPromisesNothing() async {
    let manager = LocationManager()
    #expect(await manager.location() == nil)
    #expect(await manager.heading() == nil)
    #expect(await manager.authorizationStatus() == .notDetermined)
    #expect(await manager.accuracyAuthorization() == nil)
    #expect(await manager.locationServicesEnabled() == false)
    #expect(await manager.monitoredRegions().isEmpty)
    #expect(await LocationManager.noop.location() == nil)
  }

  @Test func onlyTheEndpointsSetAnswerDifferently() async {
    var manager = LocationManager()
    manager.authorizationStatus = { .authorizedWhenInUse }
    manager.locationServicesEnabled = { true }
    #expect(await manager.authorizationStatus() == .authorizedWhenInUse)
    #expect(await manager.locationServicesEnabled())
    #expect(await manager.headingAvailable() == false)
    await manager.startUpdatingLocation()
    #expect(await manager.location() == nil)
  }
}
