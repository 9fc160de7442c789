import Foundation
import NMEASimulation
import Plumbing

/// A real pseudo-terminal pair standing in for a USB receiver: the test writes NMEA into
/// the master side, and the code under test opens the slave through a symlink, the same
/// way it opens `/dev/serial/by-id/…`.
public final class PseudoTerminal: @unchecked Sendable {
  /// Guards writes against `unplug()`: a writer still running after the unplug must not
  /// write to a descriptor number the kernel has since given to another test's pty.
  private let lock = NSLock()
  private var isOpen = true
  public let master: CInt
  public let slave: CInt
  public let slavePath: String
  public let link: String?

  /// Opens a pair with the slave in raw mode (so nothing echoes back), and links `link` to it.
  public init(link: String? = nil) throws {
    var master: CInt = -1
    var slave: CInt = -1
    var name = [CChar](repeating: 0, count: 256)
    guard openpty(&master, &slave, &name, nil, nil) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    self.master = master
    self.slave = slave
    self.slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var settings = termios()
    tcgetattr(slave, &settings)
    cfmakeraw(&settings)
    tcsetattr(slave, TCSANOW, &settings)
    _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
    self.link = link
    if let link {
      unlink(link)
      guard symlink(slavePath, link) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
  }

  /// Waits until another process holds the device (gpsbridge takes an advisory lock on every
  /// port it opens, which even root cannot take twice); `false` after `timeout`.
  public func waitUntilHeld(timeout: Duration = .seconds(20)) async -> Bool {
    await eventually(timeout: timeout) { isHeld }
  }

  /// Waits until the code under test has read every byte written so far: before an unplug
  /// that must come after the last epoch, not during it. The kernel hands a write on the
  /// master side to the slave's input queue later, from a work queue of its own, and nothing
  /// says when: so the queue must be seen empty after a grace that covers that hand-over on a
  /// busy machine (200 ms; seen to take tens of milliseconds under load).
  public func waitUntilRead(timeout: Duration = .seconds(20)) async -> Bool {
    try? await Task.sleep(for: .milliseconds(200))
    return await eventually(timeout: timeout) { unreadBytes == 0 }
  }

  /// Bytes written and not yet read by the code under test.
  public var unreadBytes: Int {
    lock.withLock {
      guard isOpen else { return 0 }
      var count: CInt = 0
      return ioctl(slave, UInt(FIONREAD), &count) == 0 ? Int(count) : 0
    }
  }

  /// A live receiver on the caller's own thread: `epoch()` written every `interval` for
  /// `duration` of real time (its text is stamped from this machine's clock, so the pace is
  /// the point), or until `stop` says so; `after` runs after each.
  public func stream(
    every interval: TimeInterval, for duration: TimeInterval, until stop: () -> Bool = { false }, _ epoch: () -> String,
    after: () -> Void = {}
  ) {
    let end = Date().addingTimeInterval(duration)
    Self.pace(every: interval) { _ in
      guard Date() < end, !stop() else { return false }
      write(epoch())
      after()
      return true
    }
  }

  /// ``play(bursts:every:)`` on the caller's own thread.
  public func playBlocking(bursts: [[UInt8]], every interval: TimeInterval) {
    Self.pace(every: interval) { index in
      guard index < bursts.count else { return false }
      write(bursts[index])
      return true
    }
  }

  /// ``playBlocking(bursts:every:)`` until `stop` says enough (asked before each burst): a
  /// receiver that keeps sending for as long as a test, however slow the machine, needs it.
  public func playBlocking(
    bursts: [[UInt8]], every interval: TimeInterval, patience: Duration = .seconds(1), until stop: () -> Bool
  ) {
    Self.pace(every: interval) { index in
      guard index < bursts.count, !stop() else { return false }
      write(bursts[index], patience: patience)
      return true
    }
  }

  /// Calls `step` with 0, 1, 2… every `interval` until it returns false: a receiver's pace,
  /// kept on the clock (step `n` is due `n` intervals after the first), so that epochs stamped
  /// with the time they are due stay on time. (Sleeping an interval after each step fell
  /// behind on a loaded machine: a shared receiver's epochs, stamped from the start, were
  /// seconds behind the clock a minute on, and its time samples stopped.)
  static func pace(every interval: TimeInterval, _ step: (Int) -> Bool) {
    let start = ContinuousClock.now
    var index = 0
    while step(index) {
      index += 1
      let due = start + .nanoseconds(Int64(interval * 1e9) * Int64(index))
      let wait = ContinuousClock.now.duration(to: due)
      if wait > .zero { Thread.sleep(forTimeInterval: Double(wait / .nanoseconds(1)) / 1e9) }
    }
  }

  /// Writes each of `bursts` in turn, `interval` apart, as a receiver sends its epochs.
  public func play(bursts: [[UInt8]], every interval: Duration) async {
    for (index, burst) in bursts.enumerated() {
      if index > 0 { try? await Task.sleep(for: interval) }
      write(burst)
    }
  }

  /// ``waitUntilHeld(timeout:)`` on a thread of the caller's own, for a writer that must not
  /// depend on the test runner's busy thread pool.
  public func waitUntilHeldBlocking(timeout: Duration = .seconds(20)) -> Bool {
    eventuallyBlocking(timeout: timeout) { isHeld }
  }

  /// Whether another process holds the device's lock now.
  public var isHeld: Bool {
    let fd = open(slavePath, O_RDWR | O_NOCTTY | O_NONBLOCK)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    let held = flock(fd, LOCK_EX | LOCK_NB) != 0
    if !held { flock(fd, LOCK_UN) }
    return held
  }

  /// The input speed the device is set to now, as `speed_t` (`B9600` …).
  public var inputSpeed: speed_t {
    var settings = termios()
    tcgetattr(slave, &settings)
    return cfgetispeed(&settings)
  }

  /// Writes the bytes, as a receiver would. When the pty's buffer is full it waits for the
  /// reader, for up to `patience` without progress, and then drops the rest, as a real serial
  /// line would. Nothing is written once unplugged. A test that needs every byte through on a
  /// loaded machine (where the reader's queue can wait its turn for longer than a second)
  /// gives more patience.
  public func write(_ bytes: some Collection<UInt8>, patience: Duration = .seconds(1)) {
    let array = Array(bytes)
    lock.withLock {
      guard isOpen else { return }
      array.withUnsafeBytes { raw in
        var offset = 0
        var stalledSince: ContinuousClock.Instant?
        while offset < raw.count {
          let written = Glibc.write(master, raw.baseAddress! + offset, raw.count - offset)
          if written > 0 {
            offset += written
            stalledSince = nil
          } else if written < 0, errno == EAGAIN {
            let since = stalledSince ?? .now
            stalledSince = since
            guard since.duration(to: .now) < patience else { return }
            usleep(1000)
          } else {
            return
          }
        }
      }
    }
  }

  public func write(_ text: String) { write(Array(text.utf8)) }

  /// The speed the code under test set on the slave side.
  public var slaveSpeed: Int? {
    lock.lock()
    defer { lock.unlock() }
    guard isOpen else { return nil }
    var settings = termios()
    guard tcgetattr(slave, &settings) == 0 else { return nil }
    let speed = cfgetispeed(&settings)
    let table: [(speed_t, Int)] = [
      (speed_t(B4800), 4800), (speed_t(B9600), 9600), (speed_t(B19200), 19200), (speed_t(B38400), 38400), (speed_t(B57600), 57600),
      (speed_t(B115200), 115200), (speed_t(B230400), 230400), (speed_t(B460800), 460800), (speed_t(B921600), 921600),
    ]
    return table.first { $0.0 == speed }?.1
  }

  /// Pulls the plug: the link and the device node disappear, and whoever has the device open
  /// reads its end. The slave side is kept open a while longer (``Retired``), so the kernel
  /// does not give this pty's number to the next test's at once.
  public func unplug() {
    lock.withLock {
      guard isOpen else { return }
      isOpen = false
      if let link { unlink(link) }
      close(master)
      Retired.keep(slave)
    }
  }

  /// Slave sides of unplugged ptys, held open so their numbers are not reused at once.
  ///
  /// The kernel gives a new pty the lowest free number, so the next test's pty would often be
  /// `/dev/pts/N` of one just unplugged. Code still waiting for that path to come back (a
  /// source or a `gpsbridge` given `/dev/pts/N` itself, whose test has ended but which is not
  /// stopped yet on a busy machine) then opens and locks the other test's device, as it
  /// should a receiver plugged in again: the other test reads "busy" and its bytes go to the
  /// wrong reader (a loaded full run hung so in `SerialRecoveryTests`). A held slave keeps the
  /// number taken while its device node is already gone. The oldest are let go past
  /// ``limit``: hundreds of unplugs later, long after any test that used the number.
  enum Retired {
    static let limit = 256
    private static let held = Locked([CInt]())

    static func keep(_ slave: CInt) {
      let released = held.withLock { held -> [CInt] in
        held.append(slave)
        guard held.count > limit else { return [] }
        defer { held.removeFirst(held.count - limit) }
        return Array(held.prefix(held.count - limit))
      }
      for descriptor in released { close(descriptor) }
    }
  }

  /// Writes a capture in chunks of random size, pausing `pause` about every ten lines
  /// (a burst), the way a receiver's bytes reach a USB serial adapter.
  public func play(
    _ capture: some Collection<UInt8>, pause: Duration = .milliseconds(5), chunk: ClosedRange<Int> = 1...64, seed: UInt64 = 1,
    patience: Duration = .seconds(1)
  ) async {
    let capture = Array(capture)
    var generator = SplitMix64(seed: seed)
    var start = 0
    var lines = 0
    while start < capture.count {
      let end = min(capture.count, start + Int.random(in: chunk, using: &generator))
      write(capture[start..<end], patience: patience)
      lines += capture[start..<end].filter { $0 == 0x0A }.count
      start = end
      if lines >= 10 {
        lines = 0
        try? await Task.sleep(for: pause)
      }
    }
  }

  public static func temporaryLink(_ name: String) -> String {
    scratchDirectory("gpsbridge-tests").appendingPathComponent(name).path
  }
}
