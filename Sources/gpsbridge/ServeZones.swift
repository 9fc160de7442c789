import Automation
import GPSDServer
import GPSLocation
import Station

/// `serve --regions/--visits/--mqtt`: the engine follows a served receiver as `run` does, and
/// its region and visit events go to the gpsd clients that watch with `"regions":true`, to
/// MQTT and webhooks, and to stderr.
struct ServeZones: Sendable {
  let regions: [Region]
  let options: ZoneOptions
  let outlets: ActionOutlets

  /// Whether `device` is followed.
  func follows(_ device: String) -> Bool { options.isEnabled && (options.device == nil || options.device == device) }

  /// Follows `receiver`, served as `device`, until the task is cancelled.
  func follow(_ receiver: Receiver, device: String, server: GPSDServer, status: ServeStatus) async {
    var configuration = LocationEngine.Configuration()
    if let dwell = options.visitDwell { configuration.visitMinimumDwell = dwell }
    let manager = LocationManager.receiver(receiver, configuration: configuration)
    let actions = manager.delegateBatches()
    var commands: [LocationManager.Command] = regions.map { .startMonitoringForRegion($0) }
    if options.visits { commands.append(.startMonitoringVisits) }
    commands.append(.startUpdatingLocation)
    await manager.perform(commands)
    for await batch in actions {
      outlets.take(batch, device: device)
      for action in batch {
        if let report = action.gpsdReport(device: device) { server.publish(.regionReport(report, device: device)) }
        switch action {
        case .didEnterRegion(let region): status.say("gpsbridge: \(device) entered \(region.identifier).")
        case .didExitRegion(let region): status.say("gpsbridge: \(device) left \(region.identifier).")
        default: break
        }
      }
    }
    await manager.perform(
      [.stopUpdatingLocation, .stopMonitoringVisits] + regions.map { .stopMonitoringForRegion($0) })
  }
}
