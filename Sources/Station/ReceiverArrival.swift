import Plumbing
import Transports

/// Waiting for a receiver to be plugged in, for a program that was given none and must not
/// make one up: woken by the device nodes that appear (inotify on the device directory), never
/// by a timer.
extension SourceChoice {
  /// The receiver ``DeviceDiscovery/preferredReceiver()`` finds, now or once one is plugged
  /// in; `nil` when the task is cancelled first.
  public static func waitForReceiver(discovery: DeviceDiscovery = DeviceDiscovery()) async -> ChosenSource? {
    let watcher = discovery.nodeWatcher()
    while !Task.isCancelled {
      let seen = watcher?.changes ?? 0
      if let device = discovery.preferredReceiver() {
        return ChosenSource(source: .serial(path: device.path, baudRate: .automatic), name: device.path, reason: .foundReceiver)
      }
      if let watcher {
        guard await watcher.waitForChange(after: seen) else { return nil }
      } else {
        guard await sleepUnlessCancelled(.seconds(1)) else { return nil }
      }
    }
    return nil
  }
}

extension DeviceDiscovery {
  /// Wakes when a name appears in the device directory, or changes its permissions (udev sets
  /// them after the node appears): a USB serial node (`ttyACM0`, `ttyUSB0`) is one.
  package func nodeWatcher() -> DeviceWatcher? {
    (try? DevicePattern(devRoot + "/tty*"))??.watcher()
  }
}

extension Station {
  /// Calls `found` with each receiver `discovery` finds (``DeviceDiscovery/receivers()``):
  /// those there now, then each one plugged in, until the task is cancelled; `none` says once
  /// when none is there at start. A receiver is found once while its device node is there,
  /// under the name it had then (its `by-id` link if udev had made it, else its node), so the
  /// link udev adds a moment later does not make it a second receiver. Once its receiver has
  /// `ended`, it is found again at the next change a scan sees, as with a pattern.
  package static func watch(
    _ discovery: DeviceDiscovery, ended: @Sendable () -> Set<String>, found: (String) -> Void, none: (String) -> Void
  ) async {
    let watcher = discovery.nodeWatcher()
    var known: [String: String] = [:]
    var endedNodes = EndedNodes()
    var saidNone = false
    while !Task.isCancelled {
      let seen = watcher?.changes ?? 0
      let receivers = discovery.receivers()
      if known.isEmpty, receivers.isEmpty, !saidNone {
        saidNone = true
        none(
          "gpsbridge: No receiver is plugged in yet: waiting for one (a known GPS receiver, or a USB device that says GPS or GNSS;"
            + " name any other with --device PATH).")
      }
      let gone = ended()
      for (node, name) in known where gone.contains(name) { endedNodes.note(node) }
      known = known.filter { node, name in receivers.contains { $0.node == node } && !gone.contains(name) }
      for device in receivers where known[device.node] == nil && endedNodes.isNew(device.node) {
        known[device.node] = device.path
        found(device.path)
      }
      if let watcher {
        guard await watcher.waitForChange(after: seen) else { return }
      } else {
        guard await sleepUnlessCancelled(.seconds(1)) else { return }
      }
    }
  }
}
