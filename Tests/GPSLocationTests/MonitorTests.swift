import Foundation
import GPSLocation
import GPSLocationTestSupport
import NMEA
import NMEASimulation
import TestHelpers
import Testing

/// A drive east at 14 m/s past "shop", a circle of 100 m whose centre is 700 m ahead: outside
/// at the start, inside from about 43 s, outside again from about 57 s.
@Suite(.timeLimit(.minutes(3))) struct MonitorTests {
  static let start = UTCTimestamp(date: UTCDate(year: 2024, month: 5, day: 1), time: UTCTime(hour: 8, minute: 0, second: 0))
  static let origin = LocationCoordinate2D(latitude: 47.3769, longitude: 8.5417)
  static let metresPerDegreeEast = 111_195 * cos(47.3769 * Double.pi / 180)

  static func east(_ metres: Double) -> LocationCoordinate2D {
    LocationCoordinate2D(latitude: origin.latitude, longitude: origin.longitude + metres / metresPerDegreeEast)
  }

  static let shop = MonitorCondition.circle(center: east(700), radius: 100)

  /// The drive from `from` seconds to `to` seconds, as a capture of its own (the receiver
  /// was off before `from`).
  static func drive(from: Double = 0, to: Double) -> LocationManager {
    let start = UTCTimestamp(nanosecondsSince1970: Self.start.nanosecondsSince1970 + Int64(from * 1e9))
    let place = east(14 * from)
    let route = Route(start: start, latitude: place.latitude, longitude: place.longitude, legs: [.drive(to - from, speed: 14)])
    return .replay(capture: .simulated(Simulation(route: route)), speed: .max)
  }

  static func seconds(_ event: MonitorEvent) -> Double {
    event.date!.timeIntervalSince1970 - Double(start.nanosecondsSince1970) / 1e9
  }

  static func events(_ monitor: Monitor) async -> [MonitorEvent] {
    var events: [MonitorEvent] = []
    for await event in monitor.events { events.append(event) }
    return events
  }

  @Test func aDriveThroughACircleIsThreeEventsAtTheFixesTimes() async throws {
    let monitor = try await Monitor.open("drive", for: Self.drive(to: 90), storage: .none)
    await monitor.add(Self.shop, identifier: "shop")
    let events = await Self.events(monitor)
    #expect(events.map(\.state) == [.unsatisfied, .satisfied, .unsatisfied])
    #expect(events.map(\.id) == [1, 2, 3])
    #expect(events.allSatisfy { $0.identifier == "shop" && !$0.detectedAtStart })
    // The edge is crossed at 600 / 14 ≈ 42.9 s and 800 / 14 ≈ 57.1 s; margin and dwell add a few.
    #expect((43...50).contains(Self.seconds(events[1])))
    #expect((57...64).contains(Self.seconds(events[2])))
    #expect(await monitor.record(for: "shop")?.lastEvent == events[2])
    #expect(await monitor.identifiers == ["shop"])
  }

  @Test func aPolygonIsJudgedAsACircleIs() async throws {
    let square = MonitorCondition.polygon(vertices: [
      LocationCoordinate2D(latitude: Self.origin.latitude - 0.0009, longitude: Self.east(600).longitude),
      LocationCoordinate2D(latitude: Self.origin.latitude - 0.0009, longitude: Self.east(800).longitude),
      LocationCoordinate2D(latitude: Self.origin.latitude + 0.0009, longitude: Self.east(800).longitude),
      LocationCoordinate2D(latitude: Self.origin.latitude + 0.0009, longitude: Self.east(600).longitude),
    ])
    let monitor = try await Monitor.open("polygon", for: Self.drive(to: 90), storage: .none)
    await monitor.add(["square": square, "shop": Self.shop])
    let events = await Self.events(monitor)
    let squares = events.filter { $0.identifier == "square" }
    let shops = events.filter { $0.identifier == "shop" }
    #expect(squares.map(\.state) == [.unsatisfied, .satisfied, .unsatisfied])
    // The square's edges are the circle's, east and west: the same crossings within a fix or two.
    for (a, b) in zip(squares, shops) { #expect(abs(Self.seconds(a) - Self.seconds(b)) <= 2) }
  }

  @Test func aConditionThatCannotBeWatchedIsAnEventAndIsNotKept() async throws {
    let directory = scratchDirectory("monitor-unsupported").path
    let monitor = try await Monitor.open("bad", for: Self.drive(to: 5), storage: .directory(directory))
    await monitor.add(.polygon(vertices: [Self.origin, Self.east(10)]), identifier: "line")
    await monitor.add(.circle(center: Self.origin, radius: .nan), identifier: "nan")
    var events = monitor.events.makeAsyncIterator()
    let line = await events.next()
    let nan = await events.next()
    #expect(line?.state == .unmonitored && line?.conditionUnsupported == true && line?.identifier == "line")
    #expect(nan?.state == .unmonitored && nan?.conditionUnsupported == true && nan?.identifier == "nan")
    #expect(await monitor.identifiers.isEmpty)
    await monitor.close()
  }

  @Test func aRestartSaysNothingAgainAndDeliversTheCrossingItMissedOnce() async throws {
    let directory = scratchDirectory("monitor-restart").path
    // Run 1 ends at 50 s, inside the shop.
    let first = try await Monitor.open("trip", for: Self.drive(to: 50), storage: .directory(directory))
    await first.add(Self.shop, identifier: "shop")
    #expect(await Self.events(first).map(\.state) == [.unsatisfied, .satisfied])
    await first.close()
    // Run 2 covers 50 to 55 s, still inside: nothing to say.
    let second = try await Monitor.open("trip", for: Self.drive(from: 50, to: 55), storage: .directory(directory))
    #expect(second.restoreNotice == nil)
    #expect(await Self.events(second).isEmpty)
    #expect(await second.record(for: "shop")?.state == .satisfied)
    await second.close()
    // Run 3 starts at 70 s: the exit happened while it was down, and is said once, at the
    // first fix, marked as found at start, with the next id.
    let third = try await Monitor.open("trip", for: Self.drive(from: 70, to: 80), storage: .directory(directory))
    let missed = await Self.events(third)
    #expect(missed.map(\.state) == [.unsatisfied])
    #expect(missed.first?.detectedAtStart == true && missed.first?.id == 3)
    #expect(missed.first.map { (70...75).contains(Self.seconds($0)) } == true, "\(missed)")
  }

  @Test func anEventBeingHandledAtAKillIsDeliveredAgainWithItsID() async throws {
    let directory = scratchDirectory("monitor-unread").path
    let first = try await Monitor.open("unread", for: Self.drive(to: 50), storage: .directory(directory))
    await first.add(Self.shop, identifier: "shop")
    var events = first.events.makeAsyncIterator()
    #expect(await events.next()?.state == .unsatisfied)
    // Asking for the entry says the first was handled; the reader is killed while it handles
    // the entry (it never asks again).
    #expect(await events.next()?.state == .satisfied)
    await first.close()
    let second = try await Monitor.open("unread", for: Self.drive(from: 50, to: 52), storage: .directory(directory))
    var again = second.events.makeAsyncIterator()
    let repeated = await again.next()
    #expect(repeated?.id == 2 && repeated?.state == .satisfied && repeated?.detectedAtStart == false)
    // The first, handled, is not delivered again; the entry, handled now, is kept no more.
    #expect(await again.next() == nil)
    await second.close()
    let third = try await Monitor.open("unread", for: Self.drive(from: 52, to: 54), storage: .directory(directory))
    #expect(await Self.events(third).isEmpty)
  }

  /// A reader that hands events on says itself which are handled: one read but never
  /// acknowledged (the broker never had it) is delivered again at the next opening; one
  /// acknowledged is not, and nothing is written after the monitor is closed.
  @Test func anEventReadButNotAcknowledgedIsDeliveredAgain() async throws {
    let directory = scratchDirectory("monitor-acknowledged").path
    let first = try await Monitor.open("handed-on", for: Self.drive(to: 50), storage: .directory(directory))
    await first.add(Self.shop, identifier: "shop")
    var events = first.eventsAcknowledgedByReader.makeAsyncIterator()
    let outside = try #require(await events.next())
    first.acknowledge(through: outside.id)
    // Read, handed on, never acknowledged; asking for more does not make it handled.
    #expect(await events.next()?.state == .satisfied)
    await first.close()
    // Acknowledged after closing: too late to be written (the next opening owns the file).
    // (The write it would start runs in a task of its own: given time to happen, it must not.)
    first.acknowledge(through: .max)
    try await Task.sleep(for: .milliseconds(200))
    let second = try await Monitor.open("handed-on", for: Self.drive(from: 50, to: 52), storage: .directory(directory))
    var again = second.eventsAcknowledgedByReader.makeAsyncIterator()
    let repeated = try #require(await again.next())
    #expect(repeated.id == outside.id + 1 && repeated.state == .satisfied)
    second.acknowledge(through: repeated.id)
    #expect(await again.next() == nil)
    await second.close()
    let third = try await Monitor.open("handed-on", for: Self.drive(from: 52, to: 54), storage: .directory(directory))
    #expect(await Self.events(third).isEmpty)
  }

  /// A stay of `seconds` at `east` metres from the origin from `from` seconds, then `drive`
  /// seconds east.
  static func stay(from: Double, for seconds: Double, at east: Double = 0, thenDrive drive: Double) -> LocationManager {
    let start = UTCTimestamp(nanosecondsSince1970: Self.start.nanosecondsSince1970 + Int64(from * 1e9))
    let place = Self.east(east)
    let legs: [Leg] = drive > 0 ? [.stop(seconds), .drive(drive, speed: 14)] : [.stop(seconds)]
    let route = Route(start: start, latitude: place.latitude, longitude: place.longitude, legs: legs)
    return .replay(capture: .simulated(Simulation(route: route)), speed: .max)
  }

  /// Opens the monitor "visits", keeping visits, over `manager` with the shop as its one
  /// condition (the visits start with it); its events until the capture ends, and the monitor.
  static func visitsRun(_ manager: LocationManager, in directory: String) async throws -> (Monitor, [MonitorEvent]) {
    let monitor = try await Monitor.open("visits", for: manager, storage: .directory(directory), keepingVisits: true)
    await monitor.add(Self.shop, identifier: "shop")
    return (monitor, await Self.events(monitor))
  }

  /// A monitor that keeps visits makes them its events, numbered and kept before they are
  /// delivered: after a restart the arrival is not reported again, and a departure while the
  /// program was down is reported at the next start, dated the stay's last kept fix.
  @Test func aVisitInProgressSurvivesARestart() async throws {
    let directory = scratchDirectory("monitor-visits").path
    // Ten minutes at the origin; the capture ends there.
    let (before, first) = try await Self.visitsRun(Self.stay(from: 0, for: 600, thenDrive: 0), in: directory)
    let arrivals = first.compactMap(\.visit)
    #expect(arrivals.count == 1 && arrivals.first?.isDeparture == false, "\(first)")
    let arrival = try #require(first.first { $0.visit != nil })
    #expect(arrival.identifier.isEmpty && arrival.date.map { Self.seconds(of: $0) }.map { (300...302).contains($0) } == true)
    let kept = try #require(await before.visitInProgress)
    #expect(kept.arrival == arrivals.first && Self.seconds(of: kept.lastSeen) >= 599, "\(kept)")
    await before.close()

    // Back 5 minutes later, still there: no arrival again; leaving is the stay's departure,
    // with the next id.
    let (during, second) = try await Self.visitsRun(Self.stay(from: 900, for: 120, thenDrive: 60), in: directory)
    let departures = second.compactMap(\.visit)
    #expect(departures.count == 1 && departures.first?.arrivalDate == kept.arrival.arrivalDate, "\(second)")
    #expect(departures.first.map { Self.seconds(of: $0.departureDate) }.map { (1018...1021).contains($0) } == true, "\(departures)")
    #expect(second.first { $0.visit != nil }?.id == arrival.id + 1)
    #expect(await during.visitInProgress == nil)
    await during.close()

    // A stay left while the program was down: its departure at the next start, dated the last
    // fix kept.
    let (third, _) = try await Self.visitsRun(Self.stay(from: 0, for: 600, thenDrive: 0), in: directory)
    let keptAgain = try #require(await third.visitInProgress)
    await third.close()
    let (after, fourth) = try await Self.visitsRun(Self.stay(from: 2000, for: 30, at: 5000, thenDrive: 0), in: directory)
    let missed = fourth.compactMap(\.visit)
    #expect(missed.count == 1, "\(fourth)")
    #expect(missed.first?.arrivalDate == keptAgain.arrival.arrivalDate && missed.first?.departureDate == keptAgain.lastSeen)
    #expect(missed.first?.coordinate == keptAgain.arrival.coordinate)
    await after.close()

    // Opened without keeping visits, the stay kept is dropped, not resumed stale later.
    let (kept4, _) = try await Self.visitsRun(Self.stay(from: 3000, for: 600, thenDrive: 0), in: directory)
    #expect(await kept4.visitInProgress != nil)
    await kept4.close()
    let plain = try await Monitor.open("visits", for: Self.drive(to: 5), storage: .directory(directory))
    #expect(await plain.visitInProgress == nil)
    _ = await Self.events(plain)
    await plain.close()
    let (_, fifth) = try await Self.visitsRun(Self.stay(from: 9000, for: 30, at: 5000, thenDrive: 0), in: directory)
    #expect(fifth.compactMap(\.visit).isEmpty, "\(fifth)")
  }

  static func seconds(of date: Date) -> Double {
    date.timeIntervalSince1970 - Double(start.nanosecondsSince1970) / 1e9
  }

  @Test(arguments: [
    ("damaged", "{\"format\":\"gpsbridge monitor\",\"version\":1,\"name\":", "it is not JSON"),
    ("foreign", "{\"regions\":[]}", "it is not a gpsbridge monitor's state"),
    ("newer", "{\"format\":\"gpsbridge monitor\",\"version\":2}", "it is of version 2, and this gpsbridge reads version 1"),
  ])
  func anUnreadableFileIsMovedAsideSaidAndNotLost(name: String, contents: String, reason: String) async throws {
    let directory = scratchDirectory("monitor-unreadable-\(name)").path
    let path = "\(directory)/\(name).monitor.json"
    try contents.write(toFile: path, atomically: false, encoding: .utf8)
    let monitor = try await Monitor.open(name, for: Self.drive(to: 5), storage: .directory(directory))
    let notice = try #require(monitor.restoreNotice)
    #expect(notice.contains(reason) && notice.contains("moved to \(path).unreadable"))
    #expect(try String(contentsOfFile: "\(path).unreadable", encoding: .utf8) == contents)
    #expect(await monitor.identifiers.isEmpty)
    // A second unreadable file goes beside the first, not over it.
    await monitor.close()
    try contents.write(toFile: path, atomically: false, encoding: .utf8)
    _ = try await Monitor.open(name, for: Self.drive(to: 5), storage: .directory(directory))
    #expect(try String(contentsOfFile: "\(path).unreadable-2", encoding: .utf8) == contents)
    #expect(try String(contentsOfFile: "\(path).unreadable", encoding: .utf8) == contents)
  }

  @Test func aDirectoryThatCannotBeWrittenIsAClearErrorAndLosesNothing() async throws {
    let directory = scratchDirectory("monitor-read-only").path
    let kept = try await Monitor.open("kept", for: Self.drive(to: 50), storage: .directory(directory))
    await kept.add(Self.shop, identifier: "shop")
    _ = await Self.events(kept)
    await kept.close()
    let path = "\(directory)/kept.monitor.json"
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    try await makeReadOnly(directory)
    await #expect {
      _ = try await Monitor.open("kept", for: Self.drive(from: 70, to: 80), storage: .directory(directory))
    } throws: { error in
      guard let error = error as? Monitor.Error else { return false }
      return error.code == .cannotWrite && error.message.contains("Cannot write the monitor's state to \(path)")
        && error.message.contains("make \(directory) writable")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["kept.monitor.json", "kept.monitor.json.lock"])
    try await makeWritable(directory)
  }

  /// Two monitors of one file would write over each other: the second is refused while the
  /// first is open (here, in one process; another process is refused alike), and opens once
  /// it is closed.
  @Test func aMonitorAlreadyOpenIsRefusedUntilItCloses() async throws {
    let directory = scratchDirectory("monitor-in-use").path
    let first = try await Monitor.open("busy", for: Self.drive(to: 5), storage: .directory(directory))
    await #expect {
      _ = try await Monitor.open("busy", for: Self.drive(to: 5), storage: .directory(directory))
    } throws: { error in
      guard let error = error as? Monitor.Error else { return false }
      return error.code == .inUse && error.message.contains("\(directory)/busy.monitor.json is in use")
    }
    // Another name in the same directory is another file.
    let other = try await Monitor.open("other", for: Self.drive(to: 5), storage: .directory(directory))
    await other.close()
    await first.close()
    let again = try await Monitor.open("busy", for: Self.drive(to: 5), storage: .directory(directory))
    await again.close()
  }

  @Test func aNameThatIsNoFilesIsRefused() async {
    for name in ["", "../up", ".hidden", "a/b"] {
      await #expect(throws: Monitor.Error.self) { _ = try await Monitor.open(name, for: Self.drive(to: 1), storage: .none) }
    }
  }
}

/// A directory even root cannot write to: `chmod` for a user, the immutable attribute for root
/// (which ignores permissions).
func makeReadOnly(_ directory: String) async throws {
  if geteuid() != 0 {
    chmod(directory, 0o555)
  } else {
    let chattr = try await runProgram(URL(fileURLWithPath: "/usr/bin/chattr"), ["+i", directory])
    if chattr.status != 0 { Issue.record("cannot make \(directory) read-only for root (chattr +i): \(chattr.error)") }
  }
}

func makeWritable(_ directory: String) async throws {
  if geteuid() != 0 {
    chmod(directory, 0o755)
  } else {
    _ = try await runProgram(URL(fileURLWithPath: "/usr/bin/chattr"), ["-i", directory])
  }
}

@Suite(.timeLimit(.minutes(1))) struct ControlledMonitorTests {
  @Test func aControlledMonitorMakesEventsOfTheTestsDecisions() async throws {
    let (monitor, decisions) = await Monitor.controlled()
    await monitor.add(.circle(center: LocationCoordinate2D(latitude: 47, longitude: 8), radius: 100), identifier: "home")
    let first = Date(timeIntervalSince1970: 1_714_550_400)
    decisions.decide("home", .unsatisfied, at: first)
    decisions.decide("home", .unsatisfied, at: first + 1)  // no change: no event
    decisions.decide("home", .satisfied, at: first + 2)
    decisions.decide("elsewhere", .satisfied, at: first + 3)  // not a condition of the monitor
    decisions.finish()
    var events: [MonitorEvent] = []
    for await event in monitor.events { events.append(event) }
    #expect(
      events == [
        MonitorEvent(id: 1, identifier: "home", state: .unsatisfied, previousState: .unknown, date: first),
        MonitorEvent(id: 2, identifier: "home", state: .satisfied, previousState: .unsatisfied, date: first + 2),
      ])
    #expect(events[1].isCrossing && !events[0].isCrossing)
  }
}
