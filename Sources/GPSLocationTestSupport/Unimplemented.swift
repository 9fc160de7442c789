import GPSLocation
import Testing
import XCTest

/// Where a test made an unimplemented manager: its failures are reported there, so they
/// point at the test rather than at this file.
struct SourcePlace: Sendable {
  var fileID: StaticString
  var filePath: StaticString
  var line: UInt
  var column: UInt

  /// Records a failure in whichever test framework is running: a Swift Testing issue inside
  /// a `@Test`, `XCTFail` inside an `XCTestCase`.
  func reportUnimplemented(_ endpoint: String) {
    let message = "Unimplemented: 'LocationManager.\(endpoint)'"
    if Test.current != nil {
      Issue.record(
        Comment(rawValue: message),
        sourceLocation: SourceLocation(fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column)))
    } else {
      XCTFail(message, file: filePath, line: line)
    }
  }

  /// An endpoint that reports itself unimplemented and answers `placeholder`.
  func endpoint<Value: Sendable>(_ name: String, returning placeholder: Value) -> @Sendable () async -> Value {
    {
      reportUnimplemented(name)
      return placeholder
    }
  }
}

extension LocationManager {
  /// A manager whose every endpoint fails the running test, naming the endpoint
  /// (`Unimplemented: 'LocationManager.requestLocation'`) at the line that made the manager,
  /// and returns a placeholder. Override the endpoints a test expects to be called, so that any
  /// other call fails loudly:
  ///
  /// ```swift
  /// var manager = LocationManager.unimplemented()
  /// manager.authorizationStatus = { .authorizedAlways }
  /// ```
  public static func unimplemented(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) -> LocationManager {
    let place = SourcePlace(fileID: fileID, filePath: filePath, line: line, column: column)
    return LocationManager(
      accuracyAuthorization: place.endpoint("accuracyAuthorization", returning: nil),
      authorizationStatus: place.endpoint("authorizationStatus", returning: .notDetermined),
      delegate: {
        place.reportUnimplemented("delegate"); return AsyncStream { $0.finish() }
      },
      heading: place.endpoint("heading", returning: nil),
      headingAvailable: place.endpoint("headingAvailable", returning: false),
      location: place.endpoint("location", returning: nil),
      locationServicesEnabled: place.endpoint("locationServicesEnabled", returning: false),
      maximumRegionMonitoringDistance: place.endpoint("maximumRegionMonitoringDistance", returning: 0),
      monitoredRegions: place.endpoint("monitoredRegions", returning: []),
      requestAlwaysAuthorization: { place.reportUnimplemented("requestAlwaysAuthorization") },
      requestLocation: { place.reportUnimplemented("requestLocation") },
      requestState: { _ in place.reportUnimplemented("requestState") },
      requestWhenInUseAuthorization: { place.reportUnimplemented("requestWhenInUseAuthorization") },
      set: { _ in place.reportUnimplemented("set") },
      significantLocationChangeMonitoringAvailable: place.endpoint("significantLocationChangeMonitoringAvailable", returning: false),
      startMonitoringForRegion: { _ in place.reportUnimplemented("startMonitoringForRegion") },
      startMonitoringSignificantLocationChanges: { place.reportUnimplemented("startMonitoringSignificantLocationChanges") },
      startMonitoringVisits: { place.reportUnimplemented("startMonitoringVisits") },
      startUpdatingHeading: { place.reportUnimplemented("startUpdatingHeading") },
      startUpdatingLocation: { place.reportUnimplemented("startUpdatingLocation") },
      stopMonitoringForRegion: { _ in place.reportUnimplemented("stopMonitoringForRegion") },
      stopMonitoringSignificantLocationChanges: { place.reportUnimplemented("stopMonitoringSignificantLocationChanges") },
      stopMonitoringVisits: { place.reportUnimplemented("stopMonitoringVisits") },
      stopUpdatingHeading: { place.reportUnimplemented("stopUpdatingHeading") },
      stopUpdatingLocation: { place.reportUnimplemented("stopUpdatingLocation") }
    )
  }
}
