import GPSLocation
import Testing
import XCTest

/// Records a failure in whichever test framework is running: a Swift Testing issue inside a
/// `@Test`, `XCTFail` inside an `XCTestCase`.
func reportUnimplemented(_ endpoint: String, fileID: StaticString = #fileID, line: UInt = #line) {
  let message = "Unimplemented: 'LocationManager.\(endpoint)'"
  if Test.current != nil {
    Issue.record(Comment(rawValue: message))
  } else {
    XCTFail(message)
  }
}

extension LocationManager {
  /// A manager whose every endpoint fails the running test, naming the endpoint
  /// (`Unimplemented: 'LocationManager.requestLocation'`), and returns a placeholder.
  /// Override the endpoints a test expects to be called, so that any other call fails loudly:
  ///
  /// ```swift
  /// var manager = LocationManager.unimplemented
  /// manager.authorizationStatus = { .authorizedAlways }
  /// ```
  public static let unimplemented = LocationManager(
    accuracyAuthorization: { reportUnimplemented("accuracyAuthorization"); return nil },
    authorizationStatus: { reportUnimplemented("authorizationStatus"); return .notDetermined },
    delegate: { reportUnimplemented("delegate"); return AsyncStream { $0.finish() } },
    heading: { reportUnimplemented("heading"); return nil },
    headingAvailable: { reportUnimplemented("headingAvailable"); return false },
    location: { reportUnimplemented("location"); return nil },
    locationServicesEnabled: { reportUnimplemented("locationServicesEnabled"); return false },
    maximumRegionMonitoringDistance: { reportUnimplemented("maximumRegionMonitoringDistance"); return 0 },
    monitoredRegions: { reportUnimplemented("monitoredRegions"); return [] },
    requestAlwaysAuthorization: { reportUnimplemented("requestAlwaysAuthorization") },
    requestLocation: { reportUnimplemented("requestLocation") },
    requestState: { _ in reportUnimplemented("requestState") },
    requestWhenInUseAuthorization: { reportUnimplemented("requestWhenInUseAuthorization") },
    set: { _ in reportUnimplemented("set") },
    significantLocationChangeMonitoringAvailable: {
      reportUnimplemented("significantLocationChangeMonitoringAvailable"); return false
    },
    startMonitoringForRegion: { _ in reportUnimplemented("startMonitoringForRegion") },
    startMonitoringSignificantLocationChanges: { reportUnimplemented("startMonitoringSignificantLocationChanges") },
    startMonitoringVisits: { reportUnimplemented("startMonitoringVisits") },
    startUpdatingHeading: { reportUnimplemented("startUpdatingHeading") },
    startUpdatingLocation: { reportUnimplemented("startUpdatingLocation") },
    stopMonitoringForRegion: { _ in reportUnimplemented("stopMonitoringForRegion") },
    stopMonitoringSignificantLocationChanges: { reportUnimplemented("stopMonitoringSignificantLocationChanges") },
    stopMonitoringVisits: { reportUnimplemented("stopMonitoringVisits") },
    stopUpdatingHeading: { reportUnimplemented("stopUpdatingHeading") },
    stopUpdatingLocation: { reportUnimplemented("stopUpdatingLocation") }
  )
}
