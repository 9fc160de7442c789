import Foundation
import TestHelpers
import Testing

@testable import Transports

/// The watcher on real directories: what udev does to `/dev/serial/by-id` on plug and unplug.
@Suite(.timeLimit(.minutes(3))) struct DeviceWatcherTests {
  /// A fresh directory tree for one test; removed afterwards.
  final class Tree {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("watcher-\(getpid())-\(UUID().uuidString.prefix(8))").path
    var directory: String { root + "/serial/by-id" }
    var link: String { directory + "/usb-Receiver-if00" }
    init() { mkdir(root, 0o755) }
    deinit { try? FileManager.default.removeItem(atPath: root) }
  }

  /// Waits for a change after `seen` (the suite's time limit fails a test whose change never
  /// comes).
  func change(_ watcher: DeviceWatcher, after seen: Int) async -> Bool {
    await watcher.waitForChange(after: seen)
  }

  @Test func aLinkRenamedIntoPlaceIsSeen() async throws {
    let tree = Tree()
    try FileManager.default.createDirectory(atPath: tree.directory, withIntermediateDirectories: true)
    let watcher = DeviceWatcher(path: tree.link)
    #expect(watcher.isWatching)
    let seen = watcher.changes
    symlink("/dev/null", tree.directory + "/.tmp-link")  // udev's temporary name: no change yet
    rename(tree.directory + "/.tmp-link", tree.link)
    #expect(await change(watcher, after: seen))
  }

  @Test func directoriesRemovedAndMadeAgainAreWatchedAgain() async throws {
    let tree = Tree()
    let watcher = DeviceWatcher(path: tree.link)
    for _ in 0..<3 {
      // The whole by-id tree appears (one change per level on the way) and then the link.
      var seen = watcher.changes
      try FileManager.default.createDirectory(atPath: tree.directory, withIntermediateDirectories: true)
      #expect(await change(watcher, after: seen))
      seen = watcher.changes
      symlink("/dev/null", tree.link)
      #expect(await change(watcher, after: seen))
      // The last unplug removes the link and its directories again.
      try FileManager.default.removeItem(atPath: tree.root + "/serial")
    }
  }

  @Test func otherNamesWakeNobody() async throws {
    let tree = Tree()
    try FileManager.default.createDirectory(atPath: tree.directory, withIntermediateDirectories: true)
    let watcher = DeviceWatcher(path: tree.link)
    let seen = watcher.changes
    symlink("/dev/null", tree.directory + "/usb-Another-Device-if00")
    _ = FileManager.default.createFile(atPath: tree.root + "/unrelated", contents: nil)
    // The watched name last: the watcher hears changes in order, so when it has heard this
    // one it would have counted the others before it.
    symlink("/dev/null", tree.link)
    #expect(await change(watcher, after: seen))
    #expect(watcher.changes == seen + 1)
  }

  @Test func aChangeBeforeTheWaitIsNotMissed() async throws {
    let tree = Tree()
    try FileManager.default.createDirectory(atPath: tree.directory, withIntermediateDirectories: true)
    let watcher = DeviceWatcher(path: tree.link)
    let seen = watcher.changes
    symlink("/dev/null", tree.link)
    #expect(await eventually { watcher.changes > seen })  // the change happens before anyone waits
    #expect(await change(watcher, after: seen))
  }

  @Test func cancellingEndsTheWait() async {
    let tree = Tree()
    let watcher = DeviceWatcher(path: tree.link)
    let waiting = Task { await watcher.waitForChange(after: watcher.changes) }
    waiting.cancel()
    #expect(await waiting.value == false)
  }

  @Test func theStepsLeadFromTheRootToThePath() {
    let steps = DeviceWatcher.steps(to: "/dev/serial/by-id/usb-X")
    #expect(steps.map(\.directory) == ["/", "/dev", "/dev/serial", "/dev/serial/by-id"])
    #expect(steps.map(\.name) == ["dev", "serial", "by-id", "usb-X"])
  }
}

/// `--device` with wildcards: which names match, and that a receiver plugged in is seen.
@Suite(.timeLimit(.minutes(3))) struct DevicePatternTests {
  @Test func aPathWithoutWildcardsIsNoPatternAndWildcardsBelongInTheLastPart() throws {
    #expect(try DevicePattern("/dev/ttyUSB0") == nil)
    let pattern = try #require(try DevicePattern("/dev/serial/by-id/*u-blox*"))
    #expect(pattern.directory == "/dev/serial/by-id" && pattern.name == "*u-blox*")
    #expect(pattern.matches("usb-u-blox_AG_-_www.u-blox.com_u-blox_GNSS_receiver-if00"))
    #expect(!pattern.matches("usb-FTDI_FT232R-if00"))
    #expect(!(try #require(try DevicePattern("/dev/ttyUSB*"))).matches(".ttyUSB0"), "hidden names, as in the shell")
    #expect(throws: DevicePatternError.self) { try DevicePattern("/dev/*/gps0") }
  }

  @Test func onlyCharacterDevicesMatchInNameOrder() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pattern-\(getpid())-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    symlink("/dev/null", directory + "/gps-b")
    symlink("/dev/zero", directory + "/gps-a")
    symlink("/dev/null", directory + "/compass")
    #expect(FileManager.default.createFile(atPath: directory + "/gps-notes", contents: Data("text".utf8)))
    let pattern = try #require(try DevicePattern(directory + "/gps-*"))
    #expect(pattern.matchingDevices() == [directory + "/gps-a", directory + "/gps-b"])
  }

  @Test func aMatchingNameThatAppearsIsAChangeAndOthersAreNot() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pattern-\(getpid())-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let watcher = try #require(try DevicePattern(directory + "/gps-*")).watcher()
    let seen = watcher.changes
    symlink("/dev/null", directory + "/compass")
    symlink("/dev/null", directory + "/gps-late")
    #expect(await DeviceWatcherTests().change(watcher, after: seen))
    #expect(watcher.changes == seen + 1, "a name that does not match is no change")
  }
}
