import FoundationEssentials
import GPSLocation

/// `run --state-dir`: the regions judged by a `Monitor` whose states are kept in the directory,
/// so that a restarted run neither repeats an entry nor loses an exit that happened while it
/// was down. Its events are printed (and sent to MQTT and webhooks) as the manager's region
/// actions, each with the fix's `"time"` and the event's `"id"`.
final class KeptRegions: Sendable {
  let monitor: Monitor
  private let printing: Task<Void, Never>

  /// Opens the monitor `regions` in `directory`, watching `regions` (and no others the file
  /// kept), and prints its events as they come.
  /// - Throws: `Monitor.Error` when the state can be neither read nor written there.
  init(
    _ regions: [Region], directory: String, manager: LocationManager, json: Bool, status: StatusLine?, outlets: ActionOutlets,
    device: String
  ) async throws(Monitor.Error) {
    let monitor = try await Monitor.open("regions", for: manager, storage: .directory(directory))
    if let notice = monitor.restoreNotice { Terminal.diagnostic("gpsbridge: \(notice)") }
    var byIdentifier: [String: Region] = [:]
    for region in regions { byIdentifier[region.identifier] = region }
    for identifier in await monitor.identifiers where byIdentifier[identifier] == nil { await monitor.remove(identifier) }
    let known = byIdentifier
    printing = Task {
      for await event in monitor.events {
        guard let region = known[event.identifier] else { continue }
        let actions = event.actions(for: region)
        outlets.take(actions, device: device)
        if json {
          var lines = ActionJSONLines(capacity: 1024)
          for action in actions { lines.append(action, of: event) }
          _ = Terminal.tryWrite(lines.bytes)
        } else {
          let text = actions.map { TextOutput.line(for: $0, at: event.date, emphasised: status != nil) + "\n" }.joined()
          _ = status?.write(text) ?? Terminal.tryWrite(Array(text.utf8))
        }
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

  /// Waits until every event is printed: the monitor ends its events at a capture's end, so
  /// a replay's last region event comes before the line that says the capture ended.
  func printed() async {
    await printing.value
  }

  /// Stops the monitor and the printing; the state is written last with what was printed, so
  /// the next run delivers none of it again.
  func stop() async {
    await monitor.close()
    await printing.value
    await monitor.close()
  }
}
