import Dispatch
import Foundation
import Plumbing

/// Tells a ``Changes`` whenever one of some files is written (inotify) or a process ends: what
/// a test waits on when a program it started writes its output to files. The files are
/// written in place (a file replaced by a rename is not followed).
public final class FileChanges: @unchecked Sendable {
  public let changes = Changes()
  private let watches: [CInt]

  /// Watches `files` (which must exist) and, if given, the end of `process` (before it runs:
  /// its termination handler is taken).
  public init(_ files: [URL], process: Process? = nil) {
    let changes = changes
    process?.terminationHandler = { _ in changes.changed() }
    watches = files.compactMap { FileWatches.shared.watch($0.path, telling: changes) }
  }

  /// Waits until `condition` holds, looking again at each write and at the end.
  public func until(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    await changes.until(timeout: timeout, condition)
  }

  deinit { FileWatches.shared.forget(changes, watches: watches) }
}

/// One inotify instance for the whole test process, its watches shared out: a user has only
/// 128 instances (`fs.inotify.max_user_instances`), and a test run with one per program it
/// starts took the last ones from the programs under test, whose device watchers then fell
/// back to waiting on a timer.
private final class FileWatches: @unchecked Sendable {
  static let shared = FileWatches()

  private struct Listener {
    weak var changes: Changes?
  }
  /// Plumbing's inotify instance, as the device watchers use it; `nil` when none was left.
  private let inotify: Inotify?
  private let queue = DispatchQueue(label: "file changes")
  private var source: (any DispatchSourceRead)?
  /// Who listens to each watch, touched on `queue` only.
  private var listeners: [CInt: [Listener]] = [:]
  /// For paths that cannot be watched (no inotify instance or watch left), a timer wakes
  /// every listener instead, started when the first such path comes.
  private var timer: (any DispatchSourceTimer)?
  /// The next key for a path that could not be watched: below -1, which the kernel gives an
  /// overflow of its queue.
  private var nextUnwatched: CInt = -2

  private init() {
    inotify = try? Inotify.open()
    guard let inotify else { return }
    let source = DispatchSource.makeReadSource(fileDescriptor: inotify.descriptor.rawValue, queue: queue)
    source.setEventHandler { [unowned self] in readEvents() }
    source.resume()
    self.source = source
  }

  /// Wakes every listener every 20 ms, from the first path that cannot be watched on (on
  /// `queue`).
  private func startTimer() {
    guard timer == nil else { return }
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now(), repeating: .milliseconds(20))
    timer.setEventHandler { [unowned self] in
      for listener in listeners.values.joined() { listener.changes?.changed() }
    }
    timer.resume()
    self.timer = timer
  }

  /// Tells `changes` when `path` is written; the watch, or `nil` when it cannot be watched.
  func watch(_ path: String, telling changes: Changes) -> CInt? {
    queue.sync {
      let watch = (try? inotify?.addWatch(path, mask: UInt32(IN_MODIFY | IN_CLOSE_WRITE))) ?? -1
      // Unwatchable: a key of its own, woken by the timer.
      let key = watch >= 0 ? watch : nextUnwatched
      if watch < 0 {
        nextUnwatched -= 1
        startTimer()
      }
      listeners[key, default: []].append(Listener(changes: changes))
      return key
    }
  }

  /// Stops telling `changes`; a watch nobody listens to any more is removed.
  func forget(_ changes: Changes, watches: [CInt]) {
    queue.sync {
      for watch in watches {
        listeners[watch]?.removeAll { $0.changes == nil || $0.changes === changes }
        if listeners[watch]?.isEmpty == true {
          listeners[watch] = nil
          if watch >= 0, let inotify { inotify_rm_watch(inotify.descriptor.rawValue, watch) }
        }
      }
    }
  }

  private func readEvents() {
    guard let events = try? inotify?.readEvents() else { return }
    for event in events {
      // Events were lost (the queue overflowed): everyone looks again.
      let woken = event.mask & Inotify.overflow != 0 ? Array(listeners.values.joined()) : listeners[event.watch] ?? []
      for listener in woken { listener.changes?.changed() }
    }
  }
}
