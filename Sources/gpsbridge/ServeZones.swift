import Automation
import GPSDServer
import GPSLocation
import Glibc
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
    // The regions' states kept across restarts: a monitor judges them (unless --state-dir none).
    var kept: KeptRegions?
    if !regions.isEmpty || options.visits, options.storage != .none {
      let outlets = self.outlets
      do {
        kept = try await KeptRegions(
          regions, name: KeptRegions.name(forDevice: device), storage: options.storage, manager: manager, keepingVisits: options.visits
        ) {
          event, actions, whenHandled in
          for action in actions { Self.say(action, of: event, device: device, server: server, status: status) }
          outlets.take(actions, device: device, of: event, whenHandled: whenHandled)
        }
      } catch {
        status.say("gpsbridge: \(error) The regions of \(device) are judged afresh at each start.")
      }
    }
    var commands: [LocationManager.Command] = kept == nil ? regions.map { .startMonitoringForRegion($0) } : []
    if options.visits, kept == nil { commands.append(.startMonitoringVisits) }
    commands.append(.startUpdatingLocation)
    await manager.perform(commands)
    for await batch in actions {
      let batch = kept.map { kept in batch.filter { !kept.saysInstead($0) } } ?? batch
      outlets.take(batch, device: device)
      for action in batch { Self.say(action, of: nil, device: device, server: server, status: status) }
    }
    await kept?.stop()
    await manager.perform(
      [.stopUpdatingLocation, .stopMonitoringVisits] + (kept == nil ? regions.map { .stopMonitoringForRegion($0) } : []))
  }

  /// A region or visit action to the gpsd clients that watch them, and entries and exits on
  /// stderr.
  private static func say(
    _ action: LocationManager.Action, of event: MonitorEvent?, device: String, server: GPSDServer, status: ServeStatus
  ) {
    if let report = action.gpsdReport(device: device, of: event) { server.publish(.regionReport(report, device: device)) }
    let late = event?.detectedAtStart == true ? " (while serve was down)" : ""
    switch action {
    case .didEnterRegion(let region): status.say("gpsbridge: \(device) entered \(region.identifier)\(late).")
    case .didExitRegion(let region): status.say("gpsbridge: \(device) left \(region.identifier)\(late).")
    default: break
    }
  }

  /// Checks, before serving, that the regions' states can be kept where asked: a directory
  /// that cannot be written is said now, and ends serve, rather than at the first entry.
  func checkStorage() async -> Monitor.Error? {
    guard !regions.isEmpty || options.visits, options.storage != .none else { return nil }
    do throws(Monitor.Error) {
      let probe = try await Monitor.open(KeptRegions.name(forDevice: "check"), for: LocationManager(), storage: options.storage)
      await probe.close()
      // The probe's lock file (`NAME.monitor.json.lock`) is the only thing it left.
      if let path = probe.path { unlink(path + ".lock") }
      return nil
    } catch {
      return error
    }
  }
}
