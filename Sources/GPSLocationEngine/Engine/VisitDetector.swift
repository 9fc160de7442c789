import FoundationEssentials

/// Finds stays (visits) in a stream of locations with a stay-point rule.
///
/// A stay begins at a location and grows while later locations fall within
/// ``LocationEngine/Configuration/visitRadius`` of the stay's centre (the running mean of
/// its locations). Only locations slower than ``LocationEngine/Configuration/visitMaximumSpeed``
/// (or of unknown speed) begin or extend a stay: a car rolling up to a stop or pulling away
/// is not staying yet, so arrival and departure land where the movement stopped and began.
/// A moving location beyond the radius still ends a stay. Once it has lasted ``LocationEngine/Configuration/visitMinimumDwell`` of
/// fix time, an arrival `Visit` is reported (departure `distantFuture`). The first location
/// beyond the radius ends it: a visit that was reported gets its departure, at the time of
/// the last location inside, and a new stay begins there.
///
/// **Gaps.** No locations for a while (a tunnel, a building, an unplugged receiver) is
/// handled by what follows it: if the next location is still within the radius, the gap is
/// taken as time spent there (you went indoors), up to
/// ``LocationEngine/Configuration/visitMaximumGap``; a longer gap ends the stay at its last
/// location, as does a next location elsewhere.
struct VisitDetector: Sendable {
  let configuration: LocationEngine.Configuration

  private var count = 0
  private var latitudeSum = 0.0
  private var longitudeSum = 0.0
  private var accuracySum = 0.0
  private var first: Date?
  private var last: Date?
  private var arrived = false
  private var farthest = 0.0

  init(configuration: LocationEngine.Configuration) {
    self.configuration = configuration
  }

  var center: LocationCoordinate2D? {
    count == 0 ? nil : LocationCoordinate2D(latitude: latitudeSum / Double(count), longitude: longitudeSum / Double(count))
  }

  mutating func reset() {
    self = VisitDetector(configuration: configuration)
  }

  mutating func update(_ location: Location) -> [LocationManager.Action] {
    var actions: [LocationManager.Action] = []
    let moving = location.decisiveSpeed >= configuration.visitMaximumSpeed
    if moving {
      if let center, let last, center.distance(to: location.coordinate) > configuration.visitRadius {
        if arrived, let visit = visit(departure: last) { actions.append(.didVisit(visit)) }
        reset()
      }
      return actions
    }
    if let center, let last {
      let gap = location.timestamp.timeIntervalSince(last)
      let distance = center.distance(to: location.coordinate)
      if distance > configuration.visitRadius || gap > configuration.visitMaximumGap {
        if arrived, let visit = visit(departure: last) { actions.append(.didVisit(visit)) }
        begin(location)
        return actions
      }
      farthest = max(farthest, distance)
    }
    if count == 0 { begin(location); return actions }
    add(location)
    if !arrived, let first, location.timestamp.timeIntervalSince(first) >= configuration.visitMinimumDwell,
      let visit = visit(departure: nil)
    {
      arrived = true
      actions.append(.didVisit(visit))
    }
    return actions
  }

  /// Goes on with `stay`, kept across a restart: its arrival is not reported again, and the
  /// next location decides, by the rules above, whether it goes on or ended at
  /// ``VisitInProgress/lastSeen``.
  mutating func resume(_ stay: VisitInProgress) {
    reset()
    let weight = Double(max(1, stay.fixes))
    count = max(1, stay.fixes)
    latitudeSum = stay.arrival.coordinate.latitude * weight
    longitudeSum = stay.arrival.coordinate.longitude * weight
    accuracySum = max(0, stay.arrival.horizontalAccuracy) * weight
    first = stay.arrival.arrivalDate
    last = stay.lastSeen
    arrived = true
  }

  private mutating func begin(_ location: Location) {
    reset()
    add(location)
    first = location.timestamp
  }

  private mutating func add(_ location: Location) {
    count += 1
    latitudeSum += location.coordinate.latitude
    longitudeSum += location.coordinate.longitude
    accuracySum += max(0, location.horizontalAccuracy)
    last = location.timestamp
  }

  private func visit(departure: Date?) -> Visit? {
    guard let center, let first else { return nil }
    let accuracy = max(farthest, accuracySum / Double(count))
    return Visit(coordinate: center, horizontalAccuracy: accuracy, arrivalDate: first, departureDate: departure ?? .distantFuture)
  }
}
