import GPSDServer
import GPSLocation
import Plumbing
import TimeService
import Transports

/// The receivers `serve` serves, each on its own (one that fails for good is said and ends,
/// the others go on): the ones named at start, and each pattern's as they are plugged in, up
/// to ``GPSDServer/maximumReceivers``. Each feeds its own refclocks when asked to.
final class ServedReceivers: Sendable {
  /// A receiver admitted to be served, with its clock feed running.
  struct Admitted: Sendable {
    let source: GPSDServer.Source
    let receiver: Receiver
    let name: String
    let clock: Task<Void, Never>?
  }

  let server: GPSDServer
  let options: ServeOptions
  let status: ServeStatus
  /// 1 once a receiver has stopped for a cause that cannot go away.
  let outcome = Locked<Int32>(0)
  /// Each receiver's clock feed, under its name, for `?TIMESERVICE;`.
  let clockFeeds = Locked<[(device: String, feed: ClockFeed)]>([])
  /// The receivers admitted, in order: a receiver's place here is its number.
  private let admitted = Locked<[String]>([])
  /// Receivers turned away because the server was full, said once each, with their PPS: they
  /// are offered again when a slot is freed.
  private let refused = Locked<[String: PulseSource?]>([:])
  /// Paths whose receiver has ended: a pattern finds them again when they next appear.
  private let ended = Locked<Set<String>>([])
  /// Where receivers found by a pattern (or offered again) arrive, while ``run`` runs.
  private let arrivals = Locked<AsyncStream<(String, PulseSource?)>.Continuation?>(nil)

  init(server: GPSDServer, options: ServeOptions, status: ServeStatus) {
    self.server = server
    self.options = options
    self.status = status
  }

  /// Admits `source` unless it is served already or the server is full (said once), and
  /// starts feeding its time when asked to (`feedsClock`) with `pps`.
  /// - Throws: the refclock that cannot be opened; the receiver is then not admitted.
  func admit(_ source: GPSDServer.Source, name: String, pps: PulseSource?, feedsClock: Bool = true) throws(ClockFeedError)
    -> Admitted?
  {
    let number: Int? = admitted.withLock { admitted in
      guard !admitted.contains(name), admitted.count < GPSDServer.maximumReceivers else { return nil }
      admitted.append(name)
      return admitted.count - 1
    }
    guard let number else {
      let isServed = admitted.withLock { $0.contains(name) }
      if !isServed, refused.withLock({ $0.updateValue(pps, forKey: name) == nil }) {
        status.say(
          "gpsbridge: \(name) is not opened: \(GPSDServer.maximumReceivers) receivers are served already, the most gpsd's clients can list."
        )
      }
      return nil
    }
    let receiver = source.receiver
    var clock: Task<Void, Never>?
    if feedsClock {
      do {
        clock = try feedClock(from: receiver, device: source.device, number: number, pps: pps)
      } catch {
        admitted.withLock { $0.removeAll { $0 == name } }
        throw error
      }
    }
    ended.withLock { _ = $0.remove(name) }
    return Admitted(source: source, receiver: receiver, name: name, clock: clock)
  }

  /// Serves the receivers admitted at start and every receiver that matches a pattern, now
  /// or when it is plugged in, until all have ended (or the task is cancelled).
  func run(_ named: [Admitted], patterns: [(DevicePattern, PulseSource?)]) async {
    await withTaskGroup(of: Void.self) { group in
      for receiver in named { group.addTask { await self.serve(receiver) } }
      let (found, arrivals) = AsyncStream.makeStream(of: (String, PulseSource?).self)
      self.arrivals.withLock { $0 = arrivals }
      group.addTask {
        await withTaskGroup(of: Void.self) { watchers in
          for (pattern, pps) in patterns {
            watchers.addTask {
              await Self.watch(
                pattern, ended: self.ended, found: { arrivals.yield(($0, pps)) }, none: { self.status.say("gpsbridge: \($0)") })
            }
          }
        }
        arrivals.finish()
      }
      for await (path, pps) in found {
        let source = GPSDServer.Source.serial(path: path, baudRate: options.source.baudRate)
        var receiver: Admitted?
        do {
          receiver = try admit(source, name: path, pps: pps)
        } catch {
          status.say("Error: \(error) \(path) is served without feeding the clock.")
          receiver = try? admit(source, name: path, pps: nil, feedsClock: false)
        }
        if let receiver { group.addTask { await self.serve(receiver, endsWhenGone: true) } }
      }
    }
  }

  /// Serves one receiver until it ends; one found by a pattern (`endsWhenGone`) also ends when
  /// its device is gone, since the pattern finds it again if it comes back, perhaps under
  /// another name. Either way its slot is then free for another.
  private func serve(_ admitted: Admitted, endsWhenGone: Bool = false) async {
    sayWhatHappens(to: admitted.receiver, name: admitted.name, status: status, outcome: outcome)
    let serving = Task { [server] in
      await server.serve(admitted.receiver, device: admitted.source.device, bitsPerSecond: admitted.source.bitsPerSecond)
    }
    let gone =
      endsWhenGone
      ? admitted.receiver.listen(wanting: []) { event in
        if case .status(.failed(.noDevice)) = event { serving.cancel() }
      } : nil
    await withTaskCancellationHandler {
      await serving.value
    } onCancel: {
      serving.cancel()
    }
    if let gone { admitted.receiver.stopListening(gone) }
    admitted.clock?.cancel()
    release(admitted.name)
  }

  /// Frees `name`'s slot and offers the receivers turned away for want of one again.
  private func release(_ name: String) {
    admitted.withLock { $0.removeAll { $0 == name } }
    ended.withLock { _ = $0.insert(name) }
    clockFeeds.withLock { $0.removeAll { $0.device == name } }
    let waiting = refused.withLock { refused in
      defer { refused.removeAll() }
      return refused
    }
    let arrivals = arrivals.withLock { $0 }
    for (path, pps) in waiting where access(path, F_OK) == 0 { arrivals?.yield((path, pps)) }
  }

  /// Calls `found` with each device that matches `pattern`: those there now, then each
  /// one that appears, until the task is cancelled; `none` says when none is there at start.
  /// A device is found once while it is there; once its receiver has `ended` (it failed, or
  /// went away), at the next change that a scan sees: when it comes back, or, for one that
  /// failed, when something else changes, never in a tight loop.
  static func watch(_ pattern: DevicePattern, ended: Locked<Set<String>>, found: (String) -> Void, none: (String) -> Void) async {
    let watcher = pattern.watcher()
    var known: Set<String> = []
    while !Task.isCancelled {
      let seen = watcher.changes
      let devices = pattern.matchingDevices()
      if known.isEmpty, devices.isEmpty, seen == 0 {
        none("No receiver matches '\(pattern)' yet: waiting for one to be plugged in.")
      }
      known.formIntersection(devices)
      known.subtract(ended.withLock { $0 })
      for path in devices where known.insert(path).inserted { found(path) }
      guard await watcher.waitForChange(after: seen) else { return }
    }
  }

  /// Feeds the receiver's time (and its pulses, with `pps`) to chrony's and ntpd's reference
  /// clocks, when asked to, and says after a minute how late its NMEA time arrives and how to
  /// tell chrony. Cancelling the task stops it all.
  private func feedClock(from receiver: Receiver, device: String, number: Int, pps: PulseSource?) throws(ClockFeedError)
    -> Task<Void, Never>?
  {
    guard options.servesTime else { return nil }
    var outputs = ClockFeed.Outputs(chrony: options.chrony, sharedMemoryUnit: options.ntpSharedMemory, pulses: pps != nil)
    if options.sharesRefclocks { outputs = outputs.receiver(named: device, number: number) }
    let prefix = options.sharesRefclocks ? "gpsbridge: \(device): " : "gpsbridge: "
    let feed = try ClockFeed(outputs, said: { [status] in status.say(prefix + $0) })
    let status = status
    let labeller = Locked(PulseLabeller())
    var pulses: PulseReader?
    if let pps {
      do {
        pulses = try PulseReader(
          pps, serialPort: device,
          edge: { edge in
            if let sample = labeller.withLock({ $0.label(edge: edge) }) { feed.take(sample) }
          },
          said: { status.say("gpsbridge: \($0)") })
      } catch {
        throw ClockFeedError(message: error.description)
      }
    }
    clockFeeds.withLock { $0.append((device, feed)) }
    let events = receiver.timeEvents()
    return Task { [pulses] in
      for await event in events {
        let sample: TimeSample
        switch event {
        case .notice(let notice):
          feed.note(notice)
          status.say(prefix + notice.description + ".")
          continue
        case .sample(let fed):
          sample = fed
        }
        labeller.withLock { $0.take(sample) }
        guard let report = feed.take(sample) else { continue }
        for line in feed.advice(report) { status.say(prefix + line) }
      }
      pulses?.stop()
    }
  }
}
