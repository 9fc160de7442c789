import GPSLocation
import GPSLocationTestSupport
import NMEASimulation
import Synchronization
import Testing

/// The example app's current-location flow from the seed analysis, ported: the button when
/// not yet authorized, when authorized, when denied, and when locating fails. The model
/// keeps upstream's logic and fixes its bugs: a desired accuracy is set, failures reset the
/// request and raise an alert, and any number of views may subscribe to the delegate.
@MainActor
final class CurrentLocationModel {
  let manager: LocationManager
  var isRequestingCurrentLocation = false
  var alert: String?
  var region: LocationCoordinate2D?

  init(manager: LocationManager) {
    self.manager = manager
  }

  func currentLocationButtonTapped() async {
    guard await manager.locationServicesEnabled() else {
      alert = "Location services are turned off."
      return
    }
    switch await manager.authorizationStatus() {
    case .notDetermined:
      isRequestingCurrentLocation = true
      await manager.requestWhenInUseAuthorization()
    case .restricted, .denied:
      alert = "Please give us access to your location."
    case .authorizedAlways, .authorizedWhenInUse:
      isRequestingCurrentLocation = true
      await manager.set(desiredAccuracy: 100)
      await manager.requestLocation()
    }
  }

  func handle(_ action: LocationManager.Action) async {
    switch action {
    case .didChangeAuthorization(.authorizedAlways), .didChangeAuthorization(.authorizedWhenInUse):
      if isRequestingCurrentLocation {
        await manager.set(desiredAccuracy: 100)
        await manager.requestLocation()
      }
    case .didChangeAuthorization(.denied):
      if isRequestingCurrentLocation {
        alert = "Location makes this app better. Please consider giving us access."
        isRequestingCurrentLocation = false
      }
    case .didUpdateLocations(let locations):
      isRequestingCurrentLocation = false
      region = locations.first?.coordinate
    case .didFailWithError(let error):
      isRequestingCurrentLocation = false
      alert = error.message
    default:
      break
    }
  }
}

@MainActor
@Suite(.timeLimit(.minutes(3))) struct ExampleFlowTests {
  /// Calls made to a manager, in order.
  final class Calls: Sendable {
    let names = Mutex<[String]>([])
    func record(_ name: String) { names.withLock { $0.append(name) } }
    var list: [String] { names.withLock { $0 } }
  }

  let here = Location(coordinate: LocationCoordinate2D(latitude: 47.3769, longitude: 8.5417), horizontalAccuracy: 8)

  @Test func notYetAuthorizedAsksThenLocatesOnceGranted() async {
    let calls = Calls()
    var base = LocationManager.unimplemented()
    base.locationServicesEnabled = { true }
    base.authorizationStatus = { .notDetermined }
    base.requestWhenInUseAuthorization = { calls.record("requestWhenInUseAuthorization") }
    base.set = { _ in calls.record("set") }
    base.requestLocation = { calls.record("requestLocation") }
    let (manager, actions) = LocationManager.controlled(base)
    let model = CurrentLocationModel(manager: manager)

    await model.currentLocationButtonTapped()
    #expect(model.isRequestingCurrentLocation && calls.list == ["requestWhenInUseAuthorization"])
    await model.handle(.didChangeAuthorization(.authorizedAlways))
    #expect(calls.list == ["requestWhenInUseAuthorization", "set", "requestLocation"])
    _ = actions
    await model.handle(.didUpdateLocations([here]))
    #expect(!model.isRequestingCurrentLocation && model.region == here.coordinate)
  }

  @Test func alreadyAuthorizedLocatesAtOnceEvenWithTwoSubscribers() async {
    var base = LocationManager.unimplemented()
    base.locationServicesEnabled = { true }
    base.authorizationStatus = { .authorizedAlways }
    base.set = { _ in }
    let (manager, actions) = LocationManager.controlled(base)
    // Upstream's bug: a second delegate() call stole the first one's actions. Not here.
    let first = manager.delegate()
    let second = manager.delegate()
    var withRequest = manager
    withRequest.requestLocation = { actions.yield(.didUpdateLocations([self.here])) }
    let model = CurrentLocationModel(manager: withRequest)
    await model.currentLocationButtonTapped()
    var iterator1 = first.makeAsyncIterator()
    var iterator2 = second.makeAsyncIterator()
    let action1 = await iterator1.next()
    let action2 = await iterator2.next()
    #expect(action1 == .didUpdateLocations([here]) && action2 == action1)
    if let action1 { await model.handle(action1) }
    #expect(model.region == here.coordinate && !model.isRequestingCurrentLocation)
  }

  @Test func deniedShowsTheAlertAndRequestsNothing() async {
    var base = LocationManager.unimplemented()
    base.locationServicesEnabled = { true }
    base.authorizationStatus = { .denied }
    let model = CurrentLocationModel(manager: base)
    await model.currentLocationButtonTapped()
    #expect(model.alert == "Please give us access to your location." && !model.isRequestingCurrentLocation)
  }

  @Test func aFailedRequestResetsTheFlagAndTellsTheUser() async {
    var base = LocationManager.unimplemented()
    base.locationServicesEnabled = { true }
    base.authorizationStatus = { .authorizedAlways }
    base.set = { _ in }
    base.requestLocation = {}
    let model = CurrentLocationModel(manager: base)
    await model.currentLocationButtonTapped()
    #expect(model.isRequestingCurrentLocation)
    await model.handle(.didFailWithError(.init(.locationUnknown, "No fix within 10 s.")))
    #expect(!model.isRequestingCurrentLocation && model.alert == "No fix within 10 s.")
  }

  @Test func theWholeFlowAgainstAReplayedDrive() async {
    let manager = LocationManager.simulated(.demoDrive, speed: .max)
    let model = CurrentLocationModel(manager: manager)
    let stream = manager.delegate()
    await model.currentLocationButtonTapped()
    for await action in stream {
      await model.handle(action)
      if !model.isRequestingCurrentLocation { break }
    }
    #expect(model.alert == nil)
    #expect(model.region.map { abs($0.latitude - 47.3769) < 0.001 } == true)
  }

  @Test func unimplementedEndpointsFailTheTestNamingThemselves() async {
    await withKnownIssue {
      _ = await LocationManager.unimplemented().authorizationStatus()
    } matching: { issue in
      issue.comments.contains { $0.rawValue == "Unimplemented: 'LocationManager.authorizationStatus'" }
    }
    await withKnownIssue {
      await LocationManager.unimplemented().requestLocation()
    } matching: { issue in
      issue.comments.contains { $0.rawValue == "Unimplemented: 'LocationManager.requestLocation'" }
    }
  }
}
