/// Turns a manager's actions into live updates for one ``LiveConfiguration``: pure, so a
/// replay gives the same updates as the live receiver did.
///
/// The manager delivers every fix; the rule applies the configuration: stillness first (it
/// needs every fix, even those a distance filter would skip), then the distance filter,
/// then the accuracy flag. Diagnostics are said once as they start to hold.
package struct LiveUpdateRule: Sendable {
  package enum Step: Equatable, Sendable {
    case update(LocationUpdate)
    /// Nothing to deliver for this action.
    case none
    /// The source has no more to say (a capture ended): the stream ends.
    case end
  }

  package let configuration: LiveConfiguration
  private var stationary: StationaryDetector
  private var wasStationary = false
  private var lastDelivered: Location?
  private var saidUnavailable = false
  private var saidDenied = false

  package init(configuration: LiveConfiguration) {
    self.configuration = configuration
    stationary = StationaryDetector(rule: configuration.stationary)
  }

  package mutating func step(_ action: LocationManager.Action) -> Step {
    switch action {
    case .didUpdateLocations(let locations):
      guard let location = locations.last else { return .none }
      saidUnavailable = false
      saidDenied = false
      let isStationary = stationary.update(location)
      defer { wasStationary = isStationary }
      if isStationary, wasStationary { return .none }
      let filter = configuration.distanceFilter
      if !isStationary, !wasStationary, filter > 0, let lastDelivered, lastDelivered.distance(from: location) < filter {
        return .none
      }
      lastDelivered = location
      let desired = configuration.desiredAccuracy
      let limited = desired >= 0 && (location.horizontalAccuracy < 0 || location.horizontalAccuracy > desired)
      return .update(LocationUpdate(location: location, isStationary: isStationary, accuracyLimited: limited))
    case .didPauseLocationUpdates:
      return unavailable()
    case .didResumeLocationUpdates:
      saidUnavailable = false
      return .none
    case .didChangeAuthorization(let status):
      guard status == .denied || status == .restricted else {
        saidDenied = false
        return .none
      }
      return denied()
    case .didFailWithError(let error):
      switch error.code {
      case .endOfCapture: return .end
      case .denied: return denied()
      case .deviceUnavailable, .network, .locationUnknown: return unavailable()
      case .regionMonitoringFailure, .regionMonitoringDenied: return .none
      }
    default:
      return .none
    }
  }

  private mutating func unavailable() -> Step {
    stationary.reset()
    wasStationary = false
    guard !saidUnavailable else { return .none }
    saidUnavailable = true
    return .update(LocationUpdate(location: nil, locationUnavailable: true))
  }

  private mutating func denied() -> Step {
    guard !saidDenied else { return .none }
    saidDenied = true
    return .update(LocationUpdate(location: nil, authorizationDenied: true))
  }
}
