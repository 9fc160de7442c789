import Foundation
import GPSLocation
import GPSLocationTestSupport
import NMEA
import NMEASimulation
import Plumbing
import TestHelpers
import Testing

/// The serial source on real pseudo-terminals, through the same code path a USB receiver takes.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SerialSourceTests {
  static let capture = try! Array(Data(contentsOf: fixturesDirectory.appendingPathComponent("sirf-nmea22-1hz.nmea")))
  static var fast: SerialSource.Timing {
    var timing = SerialSource.Timing()
    timing.probeWindow = .milliseconds(300)
    timing.silenceTimeout = .seconds(2)
    timing.retryMaximum = .milliseconds(400)
    return timing
  }

  /// The fixes the NMEA pipeline makes of the capture directly: what the device must give.
  static let expectedLocations: Int = {
    var decoder = FixDecoder()
    decoder.append(capture)
    decoder.finish()
    var count = 0
    while let fix = decoder.next() { if fix.hasPosition { count += 1 } }
    return count
  }()

  @Test func fixesFlowFromThePtyAsFromADevice() async throws {
    let link = PseudoTerminal.temporaryLink("gps-flow")
    let pty = try PseudoTerminal(link: link)
    defer { pty.unplug() }
    let manager = LocationManager.serial(path: link, baudRate: .fixed(9600), timing: Self.fast)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    let player = Task {
      await pty.play(Self.capture)
      // The receiver goes away right after its last epoch: that epoch still arrives.
      _ = await pty.waitUntilRead()
      pty.unplug()
    }
    var received = 0
    var authorized = false
    for await action in stream {
      if case .didChangeAuthorization(.authorizedAlways) = action { authorized = true }
      if case .didUpdateLocations = action { received += 1 }
      if case .didPauseLocationUpdates = action { break }
    }
    await player.value
    #expect(received == Self.expectedLocations)
    #expect(authorized)
    #expect(await manager.authorizationStatus() == .authorizedAlways)
    await manager.stopUpdatingLocation()
  }

  /// A receiver first heard mid-burst: its first epoch has a GGA but no RMC, so no date. It
  /// stays undated (and gives no location), never the system's date; the next epochs carry
  /// the receiver's own. Every live fix says when it arrived.
  @Test func aLiveEpochWithoutADateIsNeverGivenTheSystemsDate() async throws {
    let link = PseudoTerminal.temporaryLink("gps-no-date")
    let pty = try PseudoTerminal(link: link)
    let receiver = Receiver(SerialSource(path: link, baudRate: .fixed(9600), timing: Self.fast))
    let events = receiver.events()
    let running = Task { await receiver.run() }
    defer { running.cancel() }
    let bursts = [
      ["$GPGGA,080000.00,3351.6000,S,15112.6000,E,1,08,1.2,30.0,M,,M,,*5D"],
      [
        "$GPRMC,080001.00,A,3351.6000,S,15112.6052,E,15.55,90.00,010524,,*2D",
        "$GPGGA,080001.00,3351.6000,S,15112.6052,E,1,08,1.2,30.0,M,,M,,*5B",
      ],
      [
        "$GPRMC,080002.00,A,3351.6000,S,15112.6104,E,15.55,90.00,010524,,*2C",
        "$GPGGA,080002.00,3351.6000,S,15112.6104,E,1,08,1.2,30.0,M,,M,,*5A",
      ],
    ]
    // Once the receiver says its port is open and set up (held is not enough: the settings
    // come after the lock).
    var iterator = events.makeAsyncIterator()
    while let event = await iterator.next(), event != .status(.authorization(.authorizedAlways)) {}
    let player = Task {
      await pty.play(bursts: bursts.map { Array($0.map { $0 + "\r\n" }.joined().utf8) }, every: .milliseconds(100))
      _ = await pty.waitUntilRead()
      pty.unplug()
    }
    var fixes: [Fix] = []
    while let event = await iterator.next() {
      if case .fix(let fix) = event { fixes.append(fix) }
      if case .status(.paused) = event { break }
    }
    await player.value
    #expect(fixes.map(\.timestamp?.description) == [nil, "2024-05-01T08:00:01.000Z", "2024-05-01T08:00:02.000Z"])
    #expect(fixes.allSatisfy { $0.arrival != nil })
    #expect(fixes.compactMap { Location($0) }.count == 2)
  }

  /// A GGA-only receiver never says the date: the user is told why no location comes, once.
  @Test func aReceiverThatNeverSendsADateIsToldSoOnce() async throws {
    let link = PseudoTerminal.temporaryLink("gps-gga-only")
    let pty = try PseudoTerminal(link: link)
    let receiver = Receiver(SerialSource(path: link, baudRate: .fixed(9600), timing: Self.fast))
    let events = receiver.events()
    let running = Task { await receiver.run() }
    defer { running.cancel() }
    let simulation = Simulation(route: Route.demoDrive.lasting(6), profile: .ggaOnly)
    let player = Task {
      guard await pty.waitUntilHeld() else { return }
      await pty.play(bursts: simulation.epochs().map(\.bytes), every: .milliseconds(50))
      _ = await pty.waitUntilRead()
      pty.unplug()
    }
    var notices: [String] = []
    var fixes: [Fix] = []
    for await event in events {
      if case .notice(let notice) = event { notices.append(notice) }
      if case .fix(let fix) = event { fixes.append(fix) }
      if case .status(.paused) = event { break }
    }
    await player.value
    #expect(fixes.count >= 5 && fixes.allSatisfy { $0.timestamp == nil })
    #expect(notices.filter { $0.contains("no date (it sends no RMC or ZDA)") }.count == 1, "\(notices)")
  }

  @Test func aReceiverUnpluggedAfterItsFirstEpochStillGivesThatFix() async throws {
    let link = PseudoTerminal.temporaryLink("gps-one-epoch")
    let pty = try PseudoTerminal(link: link)
    let manager = LocationManager.serial(path: link, baudRate: .fixed(9600), timing: Self.fast)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    // One epoch, so no end of cycle has been learned: only the unplug ends it.
    let epoch = [
      "$GPGGA,120000.000,3351.6000,S,15112.6000,E,1,08,1.2,30.0,M,,M,,0000*66",
      "$GPRMC,120000.000,A,3351.6000,S,15112.6000,E,15.55,90.00,010524,2.1,W*6A",
    ].map { $0 + "\r\n" }.joined()
    // Once the manager says the port is open and set up (held is not enough: the settings come
    // after the lock).
    var actions = stream.makeAsyncIterator()
    while let action = await actions.next(), action != .didChangeAuthorization(.authorizedAlways) {}
    pty.write(Array(epoch.utf8))
    #expect(await pty.waitUntilRead())
    pty.unplug()
    var locations: [Location] = []
    while let action = await actions.next() {
      if case .didUpdateLocations(let batch) = action { locations += batch }
      if case .didPauseLocationUpdates = action { break }
    }
    #expect(locations.map(\.course) == [90])
    await manager.stopUpdatingLocation()
  }

  @Test func unplugPausesAndReplugResumesForTheSameSubscriber() async throws {
    let link = PseudoTerminal.temporaryLink("gps-replug")
    let first = try PseudoTerminal(link: link)
    let manager = LocationManager.serial(path: link, baudRate: .fixed(9600), timing: Self.fast)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    var iterator = stream.makeAsyncIterator()
    let half = Self.capture.count / 2
    Task { await first.play(Self.capture[..<half]) }
    var sawLocation = false
    while let action = await iterator.next() {
      if case .didUpdateLocations = action { sawLocation = true; break }
    }
    #expect(sawLocation)
    first.unplug()
    var paused = false
    var error: LocationManager.Error?
    // (A silence report may come first on a loaded machine: the error that counts follows the pause.)
    while let action = await iterator.next() {
      if case .didPauseLocationUpdates = action { paused = true }
      if paused, case .didFailWithError(let failure) = action { error = failure; break }
    }
    #expect(paused)
    #expect(error?.code == .deviceUnavailable && error?.message.contains("went away") == true)

    // A new device appears behind the same link (a by-id path survives renumbering).
    let second = try PseudoTerminal(link: link)
    defer { second.unplug() }
    var resumed = false
    Task {
      guard await second.waitUntilHeld() else { return }
      await second.play(Self.capture[half...])
    }
    while let action = await iterator.next() {
      if case .didResumeLocationUpdates = action { resumed = true }
      if case .didUpdateLocations = action, resumed { break }
    }
    #expect(resumed)
    await manager.stopUpdatingLocation()
  }

  @Test func autobaudFindsTheRateWhereTheReceiverMakesSense() async throws {
    let link = PseudoTerminal.temporaryLink("gps-autobaud")
    let pty = try PseudoTerminal(link: link)
    defer { pty.unplug() }
    // A new pty runs at 38400 already; start from a speed autobaud never tries.
    var settings = termios()
    tcgetattr(pty.slave, &settings)
    cfsetispeed(&settings, speed_t(B1200))
    cfsetospeed(&settings, speed_t(B1200))
    tcsetattr(pty.slave, TCSANOW, &settings)
    let notices = NoticeLog()
    // Each rate's probe window passes on a test clock, 50 ms for each 200 bytes the receiver
    // writes: a busy machine that reads late cannot cut a window short.
    let clock = TestClock()
    let serial = Receiver(SerialSource(path: link, baudRate: .automatic, timing: Self.fast, scheduler: Scheduler(clock: clock)))
    serial.listen { event in if case .notice(let notice) = event { notices.append(notice) } }
    let manager = LocationManager.receiver(serial)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    // A receiver at 38400: at any other speed the port would see only line noise.
    let receiver = Task {
      var generator = SplitMix64(seed: 9)
      var offset = 0
      while !Task.isCancelled {
        if pty.slaveSpeed == 38400 {
          let end = min(Self.capture.count, offset + 200)
          pty.write(Self.capture[offset..<end])
          offset = end == Self.capture.count ? 0 : end
        } else {
          pty.write((0..<200).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        try? await Task.sleep(for: .milliseconds(20))
        clock.advance(by: .milliseconds(50))
      }
    }
    defer { receiver.cancel() }
    for await action in stream {
      if case .didUpdateLocations = action { break }
    }
    #expect(pty.slaveSpeed == 38400)
    #expect(notices.lines.contains("\(link): NMEA at 38400 baud"))
    await manager.stopUpdatingLocation()
  }

  /// Silence is said once the port has been quiet for the whole timeout by the source's
  /// clock: not at the tick before, and at the tick that reaches it.
  @Test func silenceIsReportedClearlyAfterTheTimeout() async throws {
    let link = PseudoTerminal.temporaryLink("gps-silent")
    let pty = try PseudoTerminal(link: link)
    defer { pty.unplug() }
    let clock = TestClock()
    let receiver = Receiver(SerialSource(path: link, baudRate: .fixed(4800), timing: Self.fast, scheduler: Scheduler(clock: clock)))
    let said = NoticeLog()
    receiver.listen { event in if case .status(.failed(let error)) = event { said.append(error.message) } }
    let events = receiver.events()
    let running = Task { await receiver.run() }
    defer { running.cancel() }
    var iterator = events.makeAsyncIterator()
    while let event = await iterator.next(), event != .status(.authorization(.authorizedAlways)) {}
    // A tick at a time; each has run (and said what it found) once the next one waits.
    func tick() async {
      await clock.waitForSleepers()
      clock.advance(by: .milliseconds(250))
      await clock.waitForSleepers()
    }
    for _ in 0..<7 { await tick() }
    #expect(said.lines == [], "silence said after 1.75 s")
    await tick()
    #expect(said.lines == ["No data from \(link) for 2 s. Is the receiver powered and connected?"])
  }

  @Test func aBusyDeviceIsRefusedWithAClearError() async throws {
    let link = PseudoTerminal.temporaryLink("gps-busy")
    let pty = try PseudoTerminal(link: link)
    defer { pty.unplug() }
    let holder = LocationManager.serial(path: link, baudRate: .fixed(9600), timing: Self.fast)
    let holderStream = holder.delegate()
    await holder.startUpdatingLocation()
    for await action in holderStream { if case .didChangeAuthorization = action { break } }

    let second = LocationManager.serial(path: link, baudRate: .fixed(9600), timing: Self.fast)
    let stream = second.delegate()
    await second.startUpdatingLocation()
    let error = await firstFailure(stream)
    #expect(error?.code == .deviceUnavailable && error?.message.contains("is busy") == true)
    await second.stopUpdatingLocation()
    // The last stop releases the device: the next manager opens it.
    await holder.stopUpdatingLocation()
    let third = LocationManager.serial(path: link, baudRate: .fixed(9600), timing: Self.fast)
    let thirdStream = third.delegate()
    await third.startUpdatingLocation()
    var iterator = thirdStream.makeAsyncIterator()
    let first = await iterator.next()
    #expect(first == .didChangeAuthorization(.authorizedAlways), "\(String(describing: first)); \(Self.lockHolders(pty.slavePath))")
    await third.stopUpdatingLocation()
  }

  /// Who holds a `flock` on `path` now (from /proc/locks), for a failure's message.
  static func lockHolders(_ path: String) -> [String] {
    var status = stat()
    guard stat(path, &status) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return [] }
    return locks.split(separator: "\n").filter { $0.contains(":\(status.st_ino) ") }.map { line in
      let pid = line.split(separator: " ").dropFirst(4).first.map(String.init) ?? ""
      let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "?"
      return "pid \(pid) (this process: \(getpid())) \(command.replacingOccurrences(of: "\0", with: " "))"
    }
  }

  @Test func aRateThePortCannotTakeStopsWithTheRatesItCan() async throws {
    let link = PseudoTerminal.temporaryLink("gps-odd-rate")
    let pty = try PseudoTerminal(link: link)
    defer { pty.unplug() }
    let manager = LocationManager.serial(path: link, baudRate: .fixed(1234), timing: Self.fast)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    let error = await firstFailure(stream)
    #expect(error?.reason == .unsupportedBaudRate(path: link, rate: 1234, supportedRates: BaudRate.candidates))
    #expect(error?.reason?.isPermanent == true)
    #expect(error?.message.hasPrefix("Cannot set \(link) to 1234 baud: the serial port takes 4800, 9600,") == true)
    #expect(pty.slaveSpeed != 1234)
  }

  @Test func aPlainFileIsNotASerialDevice() async throws {
    let path = PseudoTerminal.temporaryLink("not-a-tty.txt")
    _ = FileManager.default.createFile(atPath: path, contents: Data("hello".utf8))
    let manager = LocationManager.serial(path: path, timing: Self.fast)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    let error = await firstFailure(stream)
    #expect(error?.reason == .notASerialDevice(path: path))
    #expect(error?.message.hasPrefix("\(path) is not a serial device. Give the receiver's tty") == true)
    await manager.stopUpdatingLocation()
  }

  @Test func aMissingDeviceSaysSoAndWaitsForIt() async throws {
    let link = PseudoTerminal.temporaryLink("gps-later")
    unlink(link)
    let manager = LocationManager.serial(path: link, baudRate: .fixed(9600), timing: Self.fast)
    #expect(await manager.locationServicesEnabled() == false)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    var iterator = stream.makeAsyncIterator()
    var error: LocationManager.Error?
    while let action = await iterator.next() { if case .didFailWithError(let failure) = action { error = failure; break } }
    #expect(error?.message.hasPrefix("No device at \(link).") == true)
    // Plugged in later: it is found without a restart.
    let pty = try PseudoTerminal(link: link)
    defer { pty.unplug() }
    Task {
      guard await pty.waitUntilHeld() else { return }
      await pty.play(Self.capture)
    }
    while let action = await iterator.next() { if case .didUpdateLocations = action { break } }
    #expect(await manager.locationServicesEnabled())
    await manager.stopUpdatingLocation()
  }

  @Test func requestWhenInUseAuthorizationChecksTheDeviceAgain() async throws {
    let link = PseudoTerminal.temporaryLink("gps-authorization")
    unlink(link)
    let manager = LocationManager.serial(path: link, baudRate: .fixed(9600), timing: Self.fast)
    #expect(await manager.authorizationStatus() == .notDetermined)
    let stream = manager.delegate()
    var iterator = stream.makeAsyncIterator()
    await manager.requestWhenInUseAuthorization()
    #expect(await iterator.next() == .didChangeAuthorization(.notDetermined))
    let pty = try PseudoTerminal(link: link)
    defer { pty.unplug() }
    await manager.requestWhenInUseAuthorization()
    #expect(await iterator.next() == .didChangeAuthorization(.authorizedAlways))
    #expect(await manager.authorizationStatus() == .authorizedAlways)
  }

  @Test func droppingTheManagerReleasesTheDevice() async throws {
    let link = PseudoTerminal.temporaryLink("gps-dropped")
    let pty = try PseudoTerminal(link: link)
    defer { pty.unplug() }
    var first: LocationManager? = LocationManager.serial(path: link, baudRate: .fixed(9600), timing: Self.fast)
    let firstStream = first!.delegate()
    await first!.startUpdatingLocation()
    var firstIterator = firstStream.makeAsyncIterator()
    #expect(await firstIterator.next() == .didChangeAuthorization(.authorizedAlways))
    first = nil
    // Its delegate stream ends, and the port is free for the next one.
    while await firstIterator.next() != nil {}
    #expect(await eventually { !pty.isHeld })
    let second = LocationManager.serial(path: link, baudRate: .fixed(9600), timing: Self.fast)
    let stream = second.delegate()
    await second.startUpdatingLocation()
    var iterator = stream.makeAsyncIterator()
    #expect(await iterator.next() == .didChangeAuthorization(.authorizedAlways))
    await second.stopUpdatingLocation()
  }

  @Test func theOriginalTerminalSettingsComeBackOnClose() async throws {
    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    var before = termios()
    tcgetattr(pty.slave, &before)
    let manager = LocationManager.serial(path: pty.slavePath, baudRate: .fixed(115200), timing: Self.fast)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    for await action in stream { if case .didChangeAuthorization = action { break } }
    #expect(pty.slaveSpeed == 115200)
    await manager.stopUpdatingLocation()  // returns once the device is closed
    var after = termios()
    tcgetattr(pty.slave, &after)
    #expect(cfgetispeed(&after) == cfgetispeed(&before))
  }
}

final class NoticeLog: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: [String] = []
  func append(_ line: String) { lock.withLock { stored.append(line) } }
  var lines: [String] { lock.withLock { stored } }
}
