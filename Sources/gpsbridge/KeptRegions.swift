import FoundationEssentials
import GPSLocation

/// Regions whose states are kept across restarts (`run --state-dir`, `serve --regions`): a
/// `Monitor` judges them, so that a restarted program neither repeats an entry nor loses an
/// exit that happened while it was down. Its events are handed on as the manager's region
/// actions, with the event (its fix's time and id) for the outputs to say.
///
/// An event is handled, and forgotten by the state, only once every outlet has it: the
/// terminal and the gpsd clients when it is handed on, MQTT when the broker acknowledges it,
/// a webhook when it is delivered (or given up). One a kill cuts short is delivered again at
/// the next start, with its id.
final class KeptRegions: Sendable {
  let monitor: Monitor
  /// Whether the visits are the monitor's too.
  let keepsVisits: Bool
  private let delivering: Task<Void, Never>
  private let pending: Shared<Pending>

  /// Events handed on and not yet handled by every outlet, in id order.
  private struct Pending {
    var order: [UInt64] = []
    var handled: Set<UInt64> = []
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextWaiter = 0

    /// Takes the events handled from the front; the last of them, if any.
    mutating func handledThrough() -> UInt64? {
      var through: UInt64?
      while let first = order.first, handled.remove(first) != nil {
        order.removeFirst()
        through = first
      }
      return through
    }
  }

  /// Opens the monitor `name` in `storage` over `manager`, watching `regions` (and no others
  /// the file kept) and, with `keepingVisits`, the manager's visits (the stay in progress
  /// kept), and hands each event to `deliver` as it comes, with what to call (once)
  /// when every outlet has it.
  /// - Throws: `Monitor.Error` when the state can be neither read nor written there.
  init(
    _ regions: [Region], name: String, storage: Monitor.Storage, manager: LocationManager, keepingVisits: Bool,
    deliver: @escaping @Sendable (MonitorEvent, [LocationManager.Action], _ whenHandled: @escaping @Sendable () -> Void) -> Void
  ) async throws(Monitor.Error) {
    let monitor = try await Monitor.open(name, for: manager, storage: storage, keepingVisits: keepingVisits)
    keepsVisits = keepingVisits
    if let notice = monitor.restoreNotice { Terminal.diagnostic("gpsbridge: \(notice)") }
    var byIdentifier: [String: Region] = [:]
    for region in regions { byIdentifier[region.identifier] = region }
    for identifier in await monitor.identifiers where byIdentifier[identifier] == nil { await monitor.remove(identifier) }
    let known = byIdentifier
    let pending = Shared(Pending())
    self.pending = pending
    delivering = Task {
      for await event in monitor.eventsAcknowledgedByReader {
        pending.withLock { $0.order.append(event.id) }
        let handled: @Sendable () -> Void = { Self.handled(event.id, pending: pending, monitor: monitor) }
        if let visit = event.visit {
          deliver(event, [.didVisit(visit)], handled)
        } else if let region = known[event.identifier] {
          deliver(event, event.actions(for: region), handled)
        } else {
          handled()
        }
      }
    }
    await monitor.add(byIdentifier.mapValues(MonitorCondition.init))
    self.monitor = monitor
  }

  /// Event `id` is handled by every outlet: the monitor forgets those handled in order.
  private static func handled(_ id: UInt64, pending: Shared<Pending>, monitor: Monitor) {
    let (through, waiters) = pending.withLock { pending in
      pending.handled.insert(id)
      let through = pending.handledThrough()
      guard pending.order.isEmpty else { return (through, [CheckedContinuation<Void, Never>]()) }
      defer { pending.waiters = [:] }
      return (through, Array(pending.waiters.values))
    }
    if let through { monitor.acknowledge(through: through) }
    for waiter in waiters { waiter.resume() }
  }

  /// Whether `action` is one the monitor says instead (the manager's own region actions, and
  /// its visits when the monitor keeps them).
  func saysInstead(_ action: LocationManager.Action) -> Bool {
    switch action {
    case .didDetermineState, .didEnterRegion, .didExitRegion, .didStartMonitoring, .monitoringDidFail: true
    case .didVisit: keepsVisits
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

  /// Stops the monitor and the delivery, once every event handed on is handled, or after
  /// `limit` (a broker that is away): the state is written last with what was handled, so the
  /// next run delivers none of it again, and delivers again what was not.
  func stop(waitingAtMost limit: Duration = .seconds(5)) async {
    await settled(within: limit)
    await monitor.close()
    await delivering.value
  }

  /// Returns when no event handed on waits for an outlet, or after `limit`, even when the
  /// caller is cancelled (a program stopping on SIGTERM, which is when it matters): the wait
  /// runs in a task of its own, which that cancellation does not reach.
  private func settled(within limit: Duration) async {
    await Task {
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await self.allHandled() }
        group.addTask { try? await Task.sleep(for: limit) }
        await group.next()
        group.cancelAll()
      }
    }.value
  }

  private func allHandled() async {
    let number = pending.withLock { pending in
      defer { pending.nextWaiter += 1 }
      return pending.nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let now = pending.withLock { pending in
          guard !pending.order.isEmpty, !Task.isCancelled else { return true }
          pending.waiters[number] = continuation
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      pending.withLock { $0.waiters.removeValue(forKey: number) }?.resume()
    }
  }
}
