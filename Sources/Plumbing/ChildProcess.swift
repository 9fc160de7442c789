import Dispatch

/// A short-lived helper program run to its end (`chronyc`), its output read through pipes.
/// Blocking: call it from a thread of its own, or a command-line program's main thread.
package enum ChildProcess {
  package struct Outcome: Sendable {
    /// The exit status, or `nil` when it was killed (its time was up) or could not start.
    package var status: Int32?
    package var output: String
    package var error: String
  }

  /// Runs `path` with `arguments` (no shell), stdin from /dev/null, for at most `timeout`
  /// seconds, then kills it. `nil` when it cannot be started (not installed).
  package static func run(_ path: String, _ arguments: [String], timeout: Double = 10) -> Outcome? {
    var output: [Int32] = [0, 0], error: [Int32] = [0, 0]
    guard pipe(&output) == 0 else { return nil }
    guard pipe(&error) == 0 else {
      close(output[0])
      close(output[1])
      return nil
    }
    // Not inherited by other children (the copies on 1 and 2 are the child's own).
    for descriptor in output + error { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, output[1], 1)
    posix_spawn_file_actions_adddup2(&actions, error[1], 2)
    // The child starts with no signal blocked and default handlers, whatever this process has.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var processID: pid_t = 0
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let spawned = posix_spawn(&processID, path, &actions, &attributes, argv, environ)
    close(output[1])
    close(error[1])
    defer {
      close(output[0])
      close(error[0])
    }
    guard spawned == 0 else { return nil }

    // Both pipes read by Dispatch read sources to their ends, or until the time is up.
    let collected = Locked<[[UInt8]]>([[], []])
    let ended = DispatchGroup()
    let queue = DispatchQueue(label: "gpsbridge.child-process")
    var sources: [any DispatchSourceRead] = []
    for (index, descriptor) in [output[0], error[0]].enumerated() {
      _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
      let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
      ended.enter()
      source.setEventHandler {
        // (Linux's read sources fire on new bytes only: read until the pipe is empty.)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
          let count = read(descriptor, &buffer, buffer.count)
          if count > 0 {
            collected.withLock { if $0[index].count < 1 << 20 { $0[index] += buffer.prefix(count) } }
          } else if count < 0, errno == EINTR {
            continue
          } else {
            if count == 0 || errno != EAGAIN { source.cancel() }
            return
          }
        }
      }
      source.setCancelHandler { ended.leave() }
      sources.append(source)
      source.activate()
    }
    let finished = ended.wait(timeout: .now() + .nanoseconds(Int(timeout * 1e9))) == .success
    if !finished {
      kill(processID, SIGKILL)
      for source in sources { source.cancel() }
      ended.wait()
    }
    var status: Int32 = 0
    while waitpid(processID, &status, 0) < 0, errno == EINTR {}
    let exited = finished && (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil
    let (out, err) = collected.withLock { ($0[0], $0[1]) }
    return Outcome(status: exited, output: String(decoding: out, as: UTF8.self), error: String(decoding: err, as: UTF8.self))
  }
}
