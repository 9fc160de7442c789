import Plumbing
import TimeService
import Transports

/// The receivers of one box, each served on its own: the ones named at start, and every
/// receiver a ``DevicePattern`` matches as it is plugged in, up to a limit; each feeds its own
/// refclocks when asked to. One that fails for good is said and ends, the others go on; a
/// slot freed is offered to the receivers turned away for want of one.
///
/// The station decides which receivers run and feeds their time; what serves them is the
/// caller's (`gpsbridge serve` hands each to a `GPSDServer`):
///
/// ```swift
/// let station = Station(configuration, said: { print($0) })
/// try await station.run { member in
///   await server.serve(member.receiver, device: member.source.device)
/// }
/// ```
public final class Station: Sendable {
  /// What the station serves.
  public struct Configuration: Sendable {
    /// The receivers served from the start, in order.
    public var sources: [Source]
    /// Patterns whose every matching device is served as it appears.
    public var patterns: [Pattern]
    /// Where to find receivers nobody named: every device ``DeviceDiscovery/receivers()``
    /// lists is served, now and as it is plugged in (`gpsbridge serve` without `--device`).
    /// `nil`: only the sources and patterns given.
    public var discovery: DeviceDiscovery?
    /// The baud rate of the receivers a pattern finds.
    public var baudRate: BaudRate
    /// The refclocks each receiver's time feeds (its pulses are fed when it has a pulse
    /// source); `nil`: the time is not fed. With several receivers (or a pattern), each feeds
    /// its own, named after its device (``ClockFeed/Outputs/receiver(named:number:)``).
    public var clock: ClockFeed.Outputs?
    /// The most receivers served at once; gpsd's clients can list 4.
    public var maximumReceivers: Int

    public init(
      sources: [Source] = [], patterns: [Pattern] = [], discovery: DeviceDiscovery? = nil, baudRate: BaudRate = .automatic,
      clock: ClockFeed.Outputs? = nil, maximumReceivers: Int = 4
    ) {
      self.sources = sources
      self.patterns = patterns
      self.discovery = discovery
      self.baudRate = baudRate
      self.clock = clock
      self.maximumReceivers = maximumReceivers
    }

    /// Whether the refclocks are several receivers' (each named after its device), rather
    /// than one receiver's named exactly as given.
    public var sharesRefclocks: Bool { sources.count > 1 || !patterns.isEmpty || discovery != nil }
  }

  /// A receiver to serve from the start.
  public struct Source: Sendable {
    public var source: ReceiverSource
    /// Its name for people, and for its refclocks: a device's path.
    public var name: String
    /// Where its pulse-per-second edges come from, if it has any.
    public var pulses: PulseSource?

    public init(_ source: ReceiverSource, name: String? = nil, pulses: PulseSource? = nil) {
      self.source = source
      self.name = name ?? source.device
      self.pulses = pulses
    }
  }

  /// Every receiver whose device matches `pattern`, each with its own pulse from `pulses` (a
  /// modem line of its own port; a kernel PPS device cannot be every receiver's).
  public struct Pattern: Sendable {
    public var pattern: DevicePattern
    public var pulses: PulseSource?

    public init(_ pattern: DevicePattern, pulses: PulseSource? = nil) {
      self.pattern = pattern
      self.pulses = pulses
    }
  }

  /// A receiver the station serves now.
  public struct Member: Sendable {
    public let source: ReceiverSource
    public let receiver: Receiver
    public let name: String
    /// Its time feed, when the station feeds the clock.
    public let clockFeed: ClockFeed?
    let feeding: Task<Void, Never>?
  }

  public let configuration: Configuration
  private let said: @Sendable (String) -> Void
  /// Everything the station's tasks share, behind one lock.
  private let state = Locked(State())

  private struct State {
    /// Set once a receiver has stopped for a cause that cannot go away.
    var stopped = false
    /// Each receiver's clock feed, under its name.
    var feeds: [(device: String, feed: ClockFeed)] = []
    /// The receivers admitted, in order: a receiver's place here is its number.
    var admitted: [String] = []
    /// Receivers turned away because the station was full, said once each, with their
    /// pulses: they are offered again when a slot is freed.
    var refused: [String: PulseSource?] = [:]
    /// Paths whose receiver has ended: a pattern finds them again when they next appear.
    var ended: Set<String> = []
    /// Where receivers found by a pattern (or offered again) arrive, while ``run(serving:)`` runs.
    var arrivals: AsyncStream<(String, PulseSource?)>.Continuation?
  }

  /// The paths whose receiver has ended, now.
  private var endedNames: @Sendable () -> Set<String> {
    { [state] in state.withLock { $0.ended } }
  }

  /// A station for `configuration`; `said` hears, in words for people, what happens to it: a
  /// receiver turned away, a pattern that matches nothing yet, each receiver's time service.
  public init(_ configuration: Configuration, said: @escaping @Sendable (String) -> Void = { _ in }) {
    self.configuration = configuration
    self.said = said
  }

  /// Whether a receiver has stopped for a cause that cannot go away (a program ends with
  /// status 1 for it).
  public var hasStoppedReceiver: Bool { state.withLock { $0.stopped } }

  /// The receivers served now, by name, in the order they were admitted.
  package var servedNames: [String] { state.withLock { $0.admitted } }

  /// Each receiver's clock feed now, under its name: what `?TIMESERVICE;` reports.
  public var clockFeeds: [(device: String, feed: ClockFeed)] { state.withLock { $0.feeds } }

  /// Serves the receivers named at start and every receiver a pattern matches, now or when it
  /// is plugged in, each through `serving`, until all have ended (or the task is cancelled).
  /// A receiver found by a pattern also ends when its device is gone, since the pattern finds
  /// it again if it comes back, perhaps under another name; either way its slot is then free.
  /// - Throws: the refclock of a receiver named at start that cannot be opened, before any is
  ///   served. One found later is served without feeding the clock, and that is said.
  public func run(serving: @escaping @Sendable (Member) async -> Void) async throws(ClockFeedError) {
    var members: [Member] = []
    for source in configuration.sources {
      do {
        if let member = try admit(source.source, name: source.name, pulses: source.pulses) { members.append(member) }
      } catch {
        for member in members { member.feeding?.cancel() }
        throw error
      }
    }
    await withTaskGroup(of: Void.self) { group in
      for member in members { group.addTask { await self.serve(member, serving: serving) } }
      let (found, arrivals) = AsyncStream.makeStream(of: (String, PulseSource?).self)
      self.state.withLock { $0.arrivals = arrivals }
      let patterns = configuration.patterns
      let discovery = configuration.discovery
      group.addTask {
        await withTaskGroup(of: Void.self) { watchers in
          for pattern in patterns {
            watchers.addTask {
              await Self.watch(
                pattern.pattern, ended: self.endedNames, found: { arrivals.yield(($0, pattern.pulses)) }, none: self.said)
            }
          }
          if let discovery {
            watchers.addTask { await Self.watch(discovery, ended: self.endedNames, found: { arrivals.yield(($0, nil)) }, none: self.said) }
          }
        }
        arrivals.finish()
      }
      for await (path, pulses) in found {
        let source = ReceiverSource.serial(path: path, baudRate: configuration.baudRate)
        var member: Member?
        do {
          member = try admit(source, name: path, pulses: pulses)
        } catch {
          said("Error: \(error) \(path) is served without feeding the clock.")
          member = try? admit(source, name: path, pulses: nil, feedsClock: false)
        }
        if let member { group.addTask { await self.serve(member, serving: serving, endsWhenGone: true) } }
      }
    }
  }

  /// `source` as a member, unless it is served already or the station is full (said once),
  /// its time fed when asked to (`feedsClock`) with `pulses`.
  /// - Throws: the refclock that cannot be opened; the receiver is then not admitted.
  private func admit(_ source: ReceiverSource, name: String, pulses: PulseSource?, feedsClock: Bool = true) throws(ClockFeedError)
    -> Member?
  {
    let limit = configuration.maximumReceivers
    let (number, newlyRefused) = state.withLock { state -> (Int?, Bool) in
      guard !state.admitted.contains(name) else { return (nil, false) }
      guard state.admitted.count < limit else { return (nil, state.refused.updateValue(pulses, forKey: name) == nil) }
      state.admitted.append(name)
      return (state.admitted.count - 1, false)
    }
    guard let number else {
      if newlyRefused {
        said("gpsbridge: \(name) is not opened: \(limit) receivers are served already, the most gpsd's clients can list.")
      }
      return nil
    }
    let receiver = source.receiver
    var feed: (ClockFeed, Task<Void, Never>)?
    if feedsClock, let outputs = configuration.clock {
      do {
        feed = try feedClock(from: receiver, outputs: outputs, device: source.device, number: number, pulses: pulses)
      } catch {
        state.withLock { $0.admitted.removeAll { $0 == name } }
        throw error
      }
    }
    state.withLock { _ = $0.ended.remove(name) }
    return Member(source: source, receiver: receiver, name: name, clockFeed: feed?.0, feeding: feed?.1)
  }

  /// Serves one member until `serving` returns (or, with `endsWhenGone`, its device is gone),
  /// then frees its slot.
  private func serve(_ member: Member, serving: @escaping @Sendable (Member) async -> Void, endsWhenGone: Bool = false) async {
    let state = self.state
    let running = Task { await serving(member) }
    let listener = member.receiver.listen(wanting: []) { event in
      switch event {
      case .status(.stopped): state.withLock { $0.stopped = true }
      case .status(.failed(.noDevice)) where endsWhenGone: running.cancel()
      default: break
      }
    }
    await withTaskCancellationHandler {
      await running.value
    } onCancel: {
      running.cancel()
    }
    // The clock feed's wants last: once it has let go, the session ends, and its device is
    // closed before the slot is free (a program that ends here exits with it closed).
    member.feeding?.cancel()
    await member.feeding?.value
    member.receiver.stopListening(listener)
    await member.receiver.sessionClosed()
    release(member.name)
  }

  /// Frees `name`'s slot and offers the receivers turned away for want of one again.
  private func release(_ name: String) {
    let waiting = state.withLock { state in
      state.admitted.removeAll { $0 == name }
      state.ended.insert(name)
      state.feeds.removeAll { $0.device == name }
      defer { state.refused.removeAll() }
      return state.refused
    }
    let arrivals = state.withLock { $0.arrivals }
    for (path, pulses) in waiting where access(path, F_OK) == 0 { arrivals?.yield((path, pulses)) }
  }

  /// Calls `found` with each device that matches `pattern`: those there now, then each
  /// one that appears, until the task is cancelled; `none` says when none is there at start.
  /// A device is found once while it is there; once its receiver has `ended` (it failed, or
  /// went away), again only when its node is another (plugged in again, its permissions set
  /// anew), never at an unrelated change and never in a tight loop.
  package static func watch(
    _ pattern: DevicePattern, ended: @Sendable () -> Set<String>, found: (String) -> Void, none: (String) -> Void
  ) async {
    let watcher = pattern.watcher()
    var known: Set<String> = []
    var endedNodes = EndedNodes()
    while !Task.isCancelled {
      let seen = watcher.changes
      let devices = pattern.matchingDevices()
      if known.isEmpty, devices.isEmpty, seen == 0 {
        none("gpsbridge: No receiver matches '\(pattern)' yet: waiting for one to be plugged in.")
      }
      known.formIntersection(devices)
      let gone = ended()
      for path in known.intersection(gone) { endedNodes.note(path) }
      known.subtract(gone)
      for path in devices where !known.contains(path) && endedNodes.isNew(path) {
        known.insert(path)
        found(path)
      }
      guard await watcher.waitForChange(after: seen) else { return }
    }
  }

  /// Feeds the receiver's time (and its pulses) to its refclocks; says what happens, after a
  /// minute how late its NMEA time arrives and how to tell chrony.
  private func feedClock(
    from receiver: Receiver, outputs: ClockFeed.Outputs, device: String, number: Int, pulses: PulseSource?
  ) throws(ClockFeedError) -> (ClockFeed, Task<Void, Never>) {
    var outputs = outputs
    outputs.pulses = pulses != nil
    if configuration.sharesRefclocks { outputs = outputs.receiver(named: device, number: number) }
    let prefix = configuration.sharesRefclocks ? "gpsbridge: \(device): " : "gpsbridge: "
    let said = said
    let feed = try ClockFeed(outputs, said: { said(prefix + $0) })
    let feeding = try feed.start(from: receiver, pulses: pulses, serialPort: device) { said(prefix + $0) }
    state.withLock { $0.feeds.append((device, feed)) }
    return (feed, feeding)
  }
}
