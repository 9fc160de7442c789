import GPSLocation
import GPSLocationTestSupport
import NMEA
import NMEASimulation
import Testing

/// The README's examples, run, so the README stays true. The live manager is swapped for a
/// replay of the demo drive; everything else is as printed there.
@Suite(.timeLimit(.minutes(3))) struct ReadmeExampleTests {
  @Test func subscribingAndReactingToActions() async {
    let manager = LocationManager.simulated(.demoDrive, speed: .max)

    let actions = manager.delegate()  // every call is a new subscriber; any number may listen
    await manager.set(desiredAccuracy: 10)
    await manager.startMonitoringForRegion(
      Region(identifier: "shop", center: LocationCoordinate2D(latitude: 47.37525, longitude: 8.54309), radius: 40))
    await manager.startUpdatingLocation()

    var printed: [String] = []
    for await action in actions {
      switch action {
      case .didUpdateLocations(let locations): printed.append("\(locations.last!.coordinate)")
      case .didEnterRegion(let region): printed.append("welcome to \(region.identifier)")
      case .didPauseLocationUpdates: printed.append("receiver unplugged; waiting for it")
      case .didFailWithError(let error): printed.append(error.message)  // says what to do
      default: break
      }
    }
    // The loop ended by itself: a replay's streams finish after its end is said.
    #expect(printed.prefix(3).allSatisfy { $0.hasPrefix("LocationCoordinate2D(latitude: 47.37") })
    // The drive stops at the shop: the region the README monitors is entered, once.
    #expect(printed.filter { $0 == "welcome to shop" }.count == 1)
    // The replay's end is said once, as what it is; nothing claims the receiver was unplugged.
    #expect(!printed.contains("receiver unplugged; waiting for it"))
    #expect(printed.last?.hasPrefix("End of capture") == true)
  }

  @Test func testValuesAsTheReadmeShowsThem() async {
    let location = Location(coordinate: LocationCoordinate2D(latitude: 47.3769, longitude: 8.5417))
    var manager = LocationManager.unimplemented()
    manager.authorizationStatus = { .authorizedAlways }
    let (controlled, actions) = LocationManager.controlled(manager)
    let stream = controlled.delegate()
    actions.yield(.didUpdateLocations([location]))
    var iterator = stream.makeAsyncIterator()
    #expect(await iterator.next() == .didUpdateLocations([location]))
    #expect(await controlled.authorizationStatus() == .authorizedAlways)
  }

  @Test func aListenerBesideTheManagerAsTheReadmeShowsIt() async {
    // The README's serial receiver, replaced by a replay of the demo drive.
    let receiver = Receiver(ReplaySource(capture: .simulated(.demoDrive), speed: .max, clock: ContinuousClock()))
    let events = receiver.events(wanting: .sentences)  // a stream of ReceiverEvent
    let manager = LocationManager.receiver(receiver)  // runs the source while it needs locations
    let actions = manager.delegate()
    await manager.startUpdatingLocation()
    var sentences = 0
    for await event in events {
      if case .sentence(let bytes) = event, bytes.first == UInt8(ascii: "$") { sentences += 1 }
      if sentences == 20 { break }
    }
    var locations = 0
    for await action in actions {
      if case .didUpdateLocations = action { locations += 1 }
      if locations == 3 { break }
    }
    #expect(sentences == 20 && locations == 3)
    await manager.stopUpdatingLocation()
  }
}
