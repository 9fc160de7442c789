import Foundation
import GPSLocation
import GPSLocationTestSupport
import NMEASimulation
import Plumbing
import TestHelpers
import Testing

/// Unplug, replug and the causes that never go away, on real pseudo-terminals behind a
/// `by-id`-style link that is removed and made again the way udev does it. The source's
/// backoff and timers run on a test clock: what waits for time waits until the test moves it.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SerialRecoveryTests {
  /// Counts the source's attempts to open the device: each is a wake-up.
  final class Attempts: Sendable {
    private let count = Watched(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.value }
    /// Waits until `condition` holds of the number of attempts.
    func until(_ condition: (Int) -> Bool) async -> Bool { await count.until(condition) }
  }

  /// Plays a 10 Hz receiver into whichever pseudo-terminal is plugged in now.
  final class Receiver: @unchecked Sendable {
    private let lock = NSLock()
    private var terminal: PseudoTerminal?
    private var playing: Task<Void, Never>?

    func plug(_ terminal: PseudoTerminal?) {
      lock.withLock {
        self.terminal?.unplug()
        self.terminal = terminal
      }
    }

    func start() {
      playing = Task.detached { [self] in
        var epochs = Simulation(route: Route.demoDrive.lasting(3600), profile: .ublox, rate: 10).epochs().makeIterator()
        while !Task.isCancelled, let epoch = epochs.next() {
          lock.withLock { terminal }?.write(epoch.bytes)
          try? await Task.sleep(for: .milliseconds(100))
        }
      }
    }

    deinit {
      playing?.cancel()
      terminal?.unplug()
    }
  }

  static func manager(path: String, attempts: Attempts, clock: TestClock, retry: Duration? = nil) -> LocationManager {
    var timing = SerialSource.Timing()
    timing.silenceTimeout = .seconds(30)
    if let retry {
      timing.retryMinimum = retry
      timing.retryMaximum = retry
    }
    let source = SerialSource(path: path, baudRate: .fixed(9600), timing: timing, scheduler: Scheduler(clock: clock))
    let receiver = Transports.Receiver(source)
    // An observer: it counts attempts without starting the session itself. (A listener that
    // wanted fixes started the source before the manager listened, and the source's first
    // word, the device missing, could be said before the manager heard anything: the test
    // then waited for ever for an error already said.)
    receiver.observe(wanting: []) { event in
      if event == .attempt { attempts.add() }
    }
    return .receiver(receiver)
  }

  /// The next action that `matches`, skipping the rest.
  static func next(
    _ iterator: inout AsyncStream<LocationManager.Action>.Iterator, _ matches: (LocationManager.Action) -> Bool
  ) async -> LocationManager.Action? {
    while let action = await iterator.next() { if matches(action) { return action } }
    return nil
  }

  @Test func tenReplugsComeBackEveryTimeAndNothingWakesWhileTheDeviceIsGone() async throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("replug-\(getpid())").path
    let directory = root + "/by-id"
    let link = directory + "/usb-Simulated_Receiver-if00"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    let receiver = Receiver()
    receiver.plug(try PseudoTerminal(link: link))
    receiver.start()
    let attempts = Attempts()
    let clock = TestClock()
    let manager = Self.manager(path: link, attempts: attempts, clock: clock)
    var actions = manager.delegate().makeAsyncIterator()
    await manager.startUpdatingLocation()
    #expect(await Self.next(&actions) { if case .didUpdateLocations = $0 { true } else { false } } != nil)

    for replug in 0..<10 {
      // Unplugged: the link goes, and on every other replug its directory too (udev removes
      // /dev/serial/by-id with the last receiver).
      receiver.plug(nil)
      if replug % 2 == 1 { try FileManager.default.removeItem(atPath: directory) }
      #expect(await Self.next(&actions) { $0 == .didPauseLocationUpdates } != nil, "replug \(replug)")
      let missing = await Self.next(&actions) {
        if case .didFailWithError(let error) = $0, case .noDevice = error.reason { true } else { false }
      }
      #expect(missing != nil, "replug \(replug): the source tried once and said the device is missing")
      // While it is gone the source waits for the device alone: no backoff, no tick is armed,
      // so an hour passes without a single attempt.
      let attemptsWhileGone = attempts.value
      #expect(clock.sleeperCount == 0, "replug \(replug): a timer is armed while the device is gone")
      clock.advance(by: .seconds(3600))
      #expect(attempts.value == attemptsWhileGone, "replug \(replug): woke while the device was gone")

      // Plugged in: the directory, the device, then the link under a temporary name, renamed.
      if replug % 2 == 1 { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
      let temporary = directory + "/.udev-tmp"
      receiver.plug(try PseudoTerminal(link: temporary))
      rename(temporary, link)
      #expect(await Self.next(&actions) { $0 == .didResumeLocationUpdates } != nil, "replug \(replug)")
      #expect(await Self.next(&actions) { if case .didUpdateLocations = $0 { true } else { false } } != nil, "replug \(replug)")
    }
    await manager.stopUpdatingLocation()
  }

  /// After each of 20 replugs the first epoch the receiver sends is the first location, and
  /// it comes as soon as that epoch is complete: the test writes one epoch and waits for its
  /// location without writing the next, so a fix held back until the next time stamp (what a
  /// source that forgot the receiver's cycle would do) never comes and the test fails.
  ///
  /// Each session lasts one epoch, shorter than the reader's tick. A session that gave a fix
  /// is not a failed attempt: the source must not back off before the next open (it did, up
  /// to a second, when the fix came after the last tick: one replug in ten took 437 ms). On a
  /// test clock that never moves, a replug that waited for the backoff would never come back.
  @Test func everyReplugsFirstEpochIsItsFirstLocationAtOnce() async throws {
    let link = PseudoTerminal.temporaryLink("gps-replug-epoch")
    var epochs = Simulation(route: Route.demoDrive.lasting(600), profile: .ublox, rate: 1).epochs().makeIterator()
    var terminal = try PseudoTerminal(link: link)
    let manager = Self.manager(path: link, attempts: Attempts(), clock: TestClock())
    var actions = manager.delegate().makeAsyncIterator()
    await manager.startUpdatingLocation()
    // What the manager said since the last location: a replug whose location never comes
    // (one loaded full run waited out the suite's time limit at replug 1) then says why, in
    // the failure, rather than only that it timed out.
    var said: [LocationManager.Action] = []
    func nextLocation() async -> Location? {
      said.removeAll()
      while let action = await actions.next() {
        if case .didUpdateLocations(let locations) = action { return locations.last }
        said.append(action)
      }
      return nil
    }
    // Three epochs teach the source where the receiver's epoch ends.
    for _ in 0..<3 {
      let epoch = epochs.next()
      terminal.write(try #require(epoch).bytes)
    }
    _ = await nextLocation()
    for replug in 0..<20 {
      terminal.unplug()
      #expect(await Self.next(&actions) { $0 == .didPauseLocationUpdates } != nil, "replug \(replug)")
      // Plugged in, and the receiver's first epoch already on the line when the port opens.
      terminal = try PseudoTerminal(link: link)
      let next = epochs.next()
      let epoch = try #require(next)
      terminal.write(epoch.bytes)
      let location = try #require(await nextLocation(), "replug \(replug); said meanwhile: \(said)")
      #expect(location.timestamp.timeIntervalSince1970 == epoch.truth.time.secondsSince1970, "replug \(replug)")
    }
    terminal.unplug()
    await manager.stopUpdatingLocation()
  }

  @Test func aPortBusyWhenItAppearsIsTriedAgainUntilItIsFree() async throws {
    let link = PseudoTerminal.temporaryLink("gps-probed")
    unlink(link)
    let attempts = Attempts()
    let clock = TestClock()
    let manager = Self.manager(path: link, attempts: attempts, clock: clock)
    var actions = manager.delegate().makeAsyncIterator()
    await manager.startUpdatingLocation()
    _ = await Self.next(&actions) { if case .didFailWithError = $0 { true } else { false } }
    // It appears held by another program (as ModemManager probes new ports), which lets go.
    let terminal = try PseudoTerminal()
    defer { terminal.unplug() }
    let prober = open(terminal.slavePath, O_RDWR | O_NOCTTY | O_NONBLOCK)
    #expect(flock(prober, LOCK_EX | LOCK_NB) == 0)
    symlink(terminal.slavePath, link)
    let busy = await Self.next(&actions) {
      if case .didFailWithError(let error) = $0, case .deviceBusy = error.reason { true } else { false }
    }
    #expect(busy != nil)
    // Busy is retried after a backoff: nothing until the clock passes it, then one attempt.
    await clock.waitForSleepers()
    let attemptsWhileBusy = attempts.value
    close(prober)
    clock.advance(by: SerialSource.Timing().retryMaximum)
    #expect(await Self.next(&actions) { $0 == .didChangeAuthorization(.authorizedAlways) } != nil)
    #expect(attempts.value == attemptsWhileBusy + 1)
    await manager.stopUpdatingLocation()
  }

  @Test func aWrongKindOfFileStopsTheSourceWithOneError() async throws {
    let attempts = Attempts()
    let clock = TestClock()
    let manager = Self.manager(path: "/dev/null", attempts: attempts, clock: clock)
    var actions = manager.delegate().makeAsyncIterator()
    await manager.startUpdatingLocation()
    let action = await actions.next()
    guard case .didFailWithError(let error) = action else {
      Issue.record("expected the error, got \(String(describing: action))")
      return
    }
    #expect(error.reason == .notASerialDevice(path: "/dev/null") && error.reason?.isPermanent == true)
    // The manager's own check of the device may say so before the source has tried: the
    // source's one attempt is awaited. Stopped for good, nothing waits to try again, however long.
    #expect(await attempts.until { $0 == 1 })
    #expect(clock.sleeperCount == 0)
    clock.advance(by: .seconds(3600))
    #expect(attempts.value == 1)
    await manager.stopUpdatingLocation()
  }

  @Test func aRequestThatTimesOutNamesTheRealCause() async throws {
    let missing = PseudoTerminal.temporaryLink("gps-never")
    unlink(missing)
    var configuration = LocationEngine.Configuration()
    configuration.requestLocationTimeout = .milliseconds(300)
    let manager = LocationManager.source(SerialSource(path: missing, baudRate: .fixed(9600)), configuration: configuration)
    var actions = manager.delegate().makeAsyncIterator()
    await manager.requestLocation()
    let answer = await Self.next(&actions) {
      if case .didFailWithError(let error) = $0 { error.message.hasPrefix("No location within") } else { false }
    }
    guard case .didFailWithError(let error) = answer else {
      Issue.record("no answer")
      return
    }
    #expect(
      error.message
        == "No location within 0.3 seconds: No device at \(missing). Plug the receiver in, or run 'gpsbridge devices' to see the serial devices present."
    )
    #expect(error.reason == .noDevice(path: missing))
  }
}
