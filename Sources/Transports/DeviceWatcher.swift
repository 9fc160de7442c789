import Dispatch
import Plumbing

/// Waits for a device path to (re)appear without waking up on a timer.
///
/// It watches, with inotify, the path's directory and every ancestor, for the next name on
/// the way to the path being created or renamed into place (udev makes `by-id` links under a
/// temporary name and renames them, and removes `/dev/serial/by-id` itself on the last
/// unplug), and for the device's own metadata changing (udev sets permissions after the node
/// appears). A directory on the way that is created gets its watch then; a watch whose
/// directory is deleted is dropped by the kernel and never removed or re-added here, which
/// could loop on `IN_IGNORED`. Any other event in those directories is read and ignored.
///
/// Callers note ``changes`` before trying the path, and after a failed try call
/// ``waitForChange(after:)``, which returns at once if something changed meanwhile, so no
/// event between the try and the wait is missed. Without inotify (not Linux, or no watches
/// left) it waits ``fallbackInterval`` instead.
///
/// The path's last part may be a pattern (``DevicePattern``): then any name in its directory
/// that matches is a change.
package final class DeviceWatcher: @unchecked Sendable {
  /// How long to wait when changes cannot be watched.
  static let fallbackInterval: Duration = .seconds(30)
  static let mask = Inotify.created | Inotify.movedTo | Inotify.attributesChanged

  /// Each directory on the way to the path, with the name in it that leads there.
  private let steps: [(directory: String, name: String)]
  private let inotify: Inotify?
  private let queue = DispatchQueue(label: "gpsbridge.device-watcher")
  // The state below is touched on `queue` only.
  private var source: (any DispatchSourceRead)?
  private var watched: [CInt: Int] = [:]
  private var changeCount = 0
  private var waiters: [(after: Int, continuation: CheckedContinuation<Bool, Never>)] = []
  private var stopped = false

  init(path: String) {
    steps = Self.steps(to: path)
    inotify = try? Inotify.open()
    guard let inotify else { return }
    queue.sync {
      for index in steps.indices { watch(index) }
      let source = DispatchSource.makeReadSource(fileDescriptor: inotify.descriptor.rawValue, queue: queue)
      source.setEventHandler { [weak self] in self?.readEvents() }
      source.setCancelHandler { inotify.close() }
      source.resume()
      self.source = source
    }
  }

  deinit {
    source?.cancel()
  }

  /// Whether changes are watched (else waits fall back to ``fallbackInterval``).
  var isWatching: Bool { queue.sync { !watched.isEmpty } }

  /// How many changes have been seen so far.
  package var changes: Int { queue.sync { changeCount } }

  /// Returns once a change after the `after`-th has been seen (at once if one has), or after
  /// ``fallbackInterval`` when changes cannot be watched; `false` when the task was cancelled.
  package func waitForChange(after seen: Int) async -> Bool {
    guard isWatching else { return await sleepUnlessCancelled(Self.fallbackInterval) }
    let changed = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        queue.async { [self] in
          if stopped {
            continuation.resume(returning: false)
          } else if changeCount > seen {
            continuation.resume(returning: true)
          } else {
            waiters.append((seen, continuation))
          }
        }
      }
    } onCancel: {
      queue.async { [self] in
        stopped = true
        let cancelled = waiters
        waiters.removeAll()
        for waiter in cancelled { waiter.continuation.resume(returning: false) }
      }
    }
    return changed && !Task.isCancelled
  }

  /// The directories from the root down to the path's own, each with the next name.
  static func steps(to path: String) -> [(directory: String, name: String)] {
    var absolute = path
    if !absolute.hasPrefix("/") {
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
      if getcwd(&buffer, buffer.count) != nil {
        absolute = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + path
      }
    }
    let names = absolute.split(separator: "/").map(String.init).filter { $0 != "." }
    var steps: [(directory: String, name: String)] = []
    var directory = "/"
    for name in names {
      steps.append((directory, name))
      directory = directory == "/" ? "/" + name : directory + "/" + name
    }
    return steps
  }

  /// Watches step `index`'s directory if it exists now (on `queue`).
  private func watch(_ index: Int) {
    guard let inotify, let watch = try? inotify.addWatch(steps[index].directory, mask: Self.mask) else { return }
    watched[watch] = index
  }

  /// Whether a name seen in a directory on the way is the step's: the same name, or for the
  /// last step a match of its pattern.
  private static func name(_ seen: String, matches step: String, last: Bool) -> Bool {
    guard last, DevicePattern.hasWildcard(step) else { return seen == step }
    return DevicePattern.entry(seen, matches: step)
  }

  private func readEvents() {
    guard let inotify, let events = try? inotify.readEvents() else { return }
    var changed = false
    for event in events {
      if event.mask & Inotify.overflow != 0 {
        // Events were lost: watch whatever exists now and try again.
        for index in steps.indices { watch(index) }
        changed = true
        continue
      }
      guard let index = watched[event.watch] else { continue }
      if event.mask & Inotify.ignored != 0 {
        watched[event.watch] = nil
        continue
      }
      guard Self.name(event.name, matches: steps[index].name, last: index == steps.count - 1) else { continue }
      changed = true
      // A directory on the way appeared: watch it and whatever below it exists already.
      if event.mask & Inotify.isDirectory != 0 {
        for deeper in (index + 1)..<steps.count { watch(deeper) }
      }
    }
    guard changed else { return }
    changeCount += 1
    let ready = waiters.filter { $0.after < changeCount }
    waiters.removeAll { $0.after < changeCount }
    for waiter in ready { waiter.continuation.resume(returning: true) }
  }
}
