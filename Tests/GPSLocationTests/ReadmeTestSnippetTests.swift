import Foundation
import GPSLocation
import GPSLocationTestSupport
import Testing

// The documentation's test snippet (The LocationManager on Linux), exactly as printed there (`theReadmesTestSnippetIsThisFile`
// holds them equal): it must run as a newcomer pastes it.

@Test func theFeatureSeesTheLocationItIsGiven() async {
  // A location as a receiver would give it: every field but the coordinate has a default.
  let location = Location(
    coordinate: LocationCoordinate2D(latitude: 47.3769, longitude: 8.5417), altitude: 408,
    horizontalAccuracy: 5, speed: 12.5, course: 90, timestamp: Date(timeIntervalSince1970: 1_764_000_000))
  var manager = LocationManager.unimplemented()
  manager.authorizationStatus = { .authorizedAlways }
  let (controlled, actions) = LocationManager.controlled(manager)
  // Yielded before the code under test subscribes: kept for its first delegate() stream.
  actions.yield(.didUpdateLocations([location]))
  actions.finish()

  // The code under test, reading the manager it is given.
  var seen: [Location] = []
  for await action in controlled.delegate() {
    if case .didUpdateLocations(let locations) = action { seen += locations }
  }
  #expect(seen == [location])
  #expect(await controlled.authorizationStatus() == .authorizedAlways)
}

@Suite struct ReadmeTestSnippetTests {
  @Test func theReadmesTestSnippetIsThisFile() throws {
    let here = URL(fileURLWithPath: #filePath)
    // (Read here, not through TestHelpers' Documentation: this file starts as the snippet does.)
    let repository = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let readme = try String(
      contentsOf: repository.appendingPathComponent("Sources/GPSLocation/GPSLocation.docc/LocationManagerOnLinux.md"), encoding: .utf8)
    let snippet = try #require(
      readme.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
        .first { $0.contains("LocationManager.controlled(manager)") })
    let file = try String(contentsOf: here, encoding: .utf8)
    // The imports, then the test function, as in this file.
    let parts = snippet.components(separatedBy: "\n\n@Test")
    try #require(parts.count == 2)
    #expect(file.hasPrefix(parts[0] + "\n"))
    #expect(file.contains("\n@Test" + parts[1] + "\n"))
  }

  @Test func actionsYieldedAfterTheFirstSubscriberGoOnlyToThoseSubscribed() async {
    let (manager, actions) = LocationManager.controlled()
    let first = manager.delegate()
    actions.yield(.didChangeAuthorization(.authorizedAlways))
    let second = manager.delegate()
    actions.yield(.didChangeAuthorization(.denied))
    actions.finish()
    #expect(await Array(first) == [.didChangeAuthorization(.authorizedAlways), .didChangeAuthorization(.denied)])
    #expect(await Array(second) == [.didChangeAuthorization(.denied)])
  }

  @Test func onlyTheNewestActionsAreKeptBeyondTheLimit() async {
    let (manager, actions) = LocationManager.controlled()
    let limit = ControlledActions.pendingLimit
    let at = { (index: Int) in
      Location(coordinate: LocationCoordinate2D(latitude: Double(index) / 1000, longitude: 0), timestamp: Date(timeIntervalSince1970: 0))
    }
    for index in 0..<(limit + 5) { actions.yield(.didUpdateLocations([at(index)])) }
    actions.finish()
    let kept = await Array(manager.delegate())
    #expect(kept.count == limit)
    #expect(kept.first == .didUpdateLocations([at(5)]))
  }
}

extension Array {
  init(_ stream: AsyncStream<Element>) async {
    self = []
    for await element in stream { append(element) }
  }
}
