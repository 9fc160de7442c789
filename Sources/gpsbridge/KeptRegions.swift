import FoundationEssentials
import GPSLocation

/// Regions whose states are kept across restarts (`run --state-dir`, `serve --regions`): a
/// `Monitor` judges them, so that a restarted program neither repeats an entry nor loses an
/// exit that happened while it was down. Its events are handed on as the manager's region
/// actions, with the event (its fix's time and id) for the outputs to say.
final class KeptRegions: Sendable {
  let monitor: Monitor
  private let delivering: Task<Void, Never>

  /// Opens the monitor `name` in `storage` over `manager`, watching `regions` (and no others
  /// the file kept), and hands each event to `deliver` as it comes.
  /// - Throws: `Monitor.Error` when the state can be neither read nor written there.
  init(
    _ regions: [Region], name: String, storage: Monitor.Storage, manager: LocationManager,
    deliver: @escaping @Sendable (MonitorEvent, [LocationManager.Action]) -> Void
  ) async throws(Monitor.Error) {
    let monitor = try await Monitor.open(name, for: manager, storage: storage)
    if let notice = monitor.restoreNotice { Terminal.diagnostic("gpsbridge: \(notice)") }
    var byIdentifier: [String: Region] = [:]
    for region in regions { byIdentifier[region.identifier] = region }
    for identifier in await monitor.identifiers where byIdentifier[identifier] == nil { await monitor.remove(identifier) }
    let known = byIdentifier
    delivering = Task {
      for await event in monitor.events {
        guard let region = known[event.identifier] else { continue }
        deliver(event, event.actions(for: region))
      }
    }
    await monitor.add(byIdentifier.mapValues(MonitorCondition.init))
    self.monitor = monitor
  }

  /// Whether `action` is one the monitor says instead (the manager's own region actions).
  static func isRegionAction(_ action: LocationManager.Action) -> Bool {
    switch action {
    case .didDetermineState, .didEnterRegion, .didExitRegion, .didStartMonitoring, .monitoringDidFail: true
    default: false
    }
  }

  /// The monitor's name for the regions of the receiver served as `device`: `regions`, then
  /// the device with its slashes as dashes (`regions-dev-ttyACM0`, `regions-best`).
  static func name(forDevice device: String) -> String {
    let parts = device.split(separator: "/").map(String.init)
    return (["regions"] + parts).joined(separator: "-").filter { $0.isLetter || $0.isNumber || "-_.".contains($0) }
  }

  /// Waits until every event is handed on: the monitor ends its events at a capture's end,
  /// so a replay's last region event comes before the line that says the capture ended.
  func delivered() async {
    await delivering.value
  }

  /// Stops the monitor and the delivery; the state is written last with what was handed on,
  /// so the next run delivers none of it again.
  func stop() async {
    await monitor.close()
    await delivering.value
    await monitor.close()
  }
}
