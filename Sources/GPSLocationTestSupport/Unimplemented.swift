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
    var manager = LocationManager()
    manager.accuracyAuthorization = place.endpoint("accuracyAuthorization", returning: nil)
    manager.authorizationStatus = place.endpoint("authorizationStatus", returning: .notDetermined)
    manager.delegate = {
      place.reportUnimplemented("delegate"); return AsyncStream { $0.finish() }
    }
    manager.heading = place.endpoint("heading", returning: nil)
    manager.headingAvailable = place.endpoint("headingAvailable", returning: false)
    manager.location = place.endpoint("location", returning: nil)
    manager.locationServicesEnabled = place.endpoint("locationServicesEnabled", returning: false)
    manager.maximumRegionMonitoringDistance = place.endpoint("maximumRegionMonitoringDistance", returning: 0)
    manager.monitoredRegions = place.endpoint("monitoredRegions", returning: [])
    manager.requestAlwaysAuthorization = { place.reportUnimplemented("requestAlwaysAuthorization") }
    manager.requestLocation = { place.reportUnimplemented("requestLocation") }
    manager.requestState = { _ in place.reportUnimplemented("requestState") }
    manager.requestWhenInUseAuthorization = { place.reportUnimplemented("requestWhenInUseAuthorization") }
    manager.set = { _ in place.reportUnimplemented("set") }
    manager.significantLocationChangeMonitoringAvailable = place.endpoint("significantLocationChangeMonitoringAvailable", returning: false)
    manager.startMonitoringForRegion = { _ in place.reportUnimplemented("startMonitoringForRegion") }
    manager.startMonitoringSignificantLocationChanges = { place.reportUnimplemented("startMonitoringSignificantLocationChanges") }
    manager.startMonitoringVisits = { place.reportUnimplemented("startMonitoringVisits") }
    manager.startUpdatingHeading = { place.reportUnimplemented("startUpdatingHeading") }
    manager.startUpdatingLocation = { place.reportUnimplemented("startUpdatingLocation") }
    manager.stopMonitoringForRegion = { _ in place.reportUnimplemented("stopMonitoringForRegion") }
    manager.stopMonitoringSignificantLocationChanges = { place.reportUnimplemented("stopMonitoringSignificantLocationChanges") }
    manager.stopMonitoringVisits = { place.reportUnimplemented("stopMonitoringVisits") }
    manager.stopUpdatingHeading = { place.reportUnimplemented("stopUpdatingHeading") }
    manager.stopUpdatingLocation = { place.reportUnimplemented("stopUpdatingLocation") }
    return manager
  }
}
