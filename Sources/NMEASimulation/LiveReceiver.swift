import Dispatch
import Framing
import NMEA
import Plumbing

/// A simulated receiver on a descriptor (a pseudo-terminal's master side), in real time: its
/// epochs written as the simulation's clock reaches them and, with a ``ReceiverResponder``, its
/// configuration read and answered as that kind of receiver would (u-blox, MediaTek, SiRF). A change of rate, sentences or output
/// protocol shows in the epochs that follow, as on the real receiver. Bytes nobody reads are
/// dropped, as on a serial line.
public final class LiveReceiver: @unchecked Sendable {
  private let simulation: Simulation
  private let port: FileDescriptor
  private let latency: Int?
  private let responder: Locked<any ReceiverResponder>?
  /// Writes from the epoch loop and from answers, one at a time.
  /// Held while writing; `true` once the line is pulled (``unplug(_:)``): nothing is written
  /// after that, since the port's number may belong to someone else by then.
  private let writing = Locked(false)
  private let queue = DispatchQueue(label: "gpsbridge.simulated-receiver")
  private var source: (any DispatchSourceRead)?
  /// Signalled when the source's cancel handler has run (see ``stopAnswering()``).
  private let sourceLetGo = DispatchSemaphore(value: 0)
  private var splitter = StreamSplitter(stages: [.ubx, .rtcm3])
  /// The line of text being written to it, up to a sentence's length.
  private var line: [UInt8] = []

  /// A receiver playing `simulation` on `port` (non-blocking). With a `latency` (milliseconds)
  /// each epoch goes out that long after this machine's clock reaches its time, as a live
  /// receiver's do, and the route should start now; without, the epochs keep their own pace
  /// from the first. With `responder`, commands written to the port are answered.
  public init(simulation: Simulation, port: Int32, latency: Int? = nil, responder: (any ReceiverResponder)? = nil) {
    self.simulation = simulation
    self.port = FileDescriptor(rawValue: port)
    self.latency = latency
    self.responder = responder.map { Locked($0) }
  }

  /// The responder's state now (its settings), if it has one.
  public var configuration: (any ReceiverResponder)? { responder?.withLock { $0 } }

  /// Plays until the route ends or the task is cancelled.
  public func run() async {
    if responder != nil { startAnswering() }
    defer { stopAnswering() }
    let clock = ContinuousClock()
    let start = clock.now
    let first = simulation.route.start.nanosecondsSince1970
    var rate = responder?.withLock { $0.rate } ?? simulation.rate
    // The simulation as it was made (its noise, DOP, attack), at the rate the receiver is set to.
    var playing = simulation
    playing.rate = rate
    var epochs = playing.epochs().makeIterator()
    while let epoch = epochs.next() {
      let time = epoch.truth.time.nanosecondsSince1970
      let due =
        if let latency {
          clock.now.advanced(by: .nanoseconds(time + Int64(latency) * 1_000_000 - SystemClock.realtimeNanoseconds))
        } else {
          start.advanced(by: .nanoseconds(time - first))
        }
      do {
        try await clock.sleep(until: due, tolerance: .microseconds(100))
      } catch {
        return
      }
      let integrity = simulation.integrity(of: epoch, sending: responder?.withLock { $0.integrityMessages } ?? [])
      let sentences = responder?.withLock { $0.filter(epoch.bytes) } ?? epoch.bytes
      var bytes = integrity.isEmpty ? sentences : integrity + sentences
      if responder?.withLock({ $0.sendsUBX }) == true { bytes += simulation.ubx(epoch) }
      if !bytes.isEmpty { write(bytes) }
      // A new rate: the epochs from here on at that rate, from the next one due.
      let wanted = responder?.withLock { $0.rate } ?? rate
      if wanted != rate {
        rate = wanted
        playing.rate = rate
        epochs = playing.epochs().makeIterator()
        while let next = epochs.next(), next.truth.time.nanosecondsSince1970 <= time {}
      }
    }
  }

  private func write(_ bytes: [UInt8]) {
    writing.withLock { unplugged in
      guard !unplugged else { return }
      _ = try? port.writeAll(speaksAtHostSpeed() ? bytes : Self.garbled(bytes))
    }
  }

  /// Whether the host's end of the line is at the speed the receiver speaks: always, until a
  /// baud rate was set (see ``UBloxResponder/lineSpeed``). For what the host wrote (`input`),
  /// the speed it had just before a change counts for a moment too: a pseudo-terminal has no
  /// line, so bytes the host drained at the old speed may be read here after it switched.
  private func speaksAtHostSpeed(input: Bool = false) -> Bool {
    guard let responder else { return true }
    let host = (try? TerminalAttributes.get(port))?.inputSpeed
    let now = ContinuousClock.now
    let recent = hostSpeeds.withLock { seen -> Int? in
      if seen.current != host {
        seen = (host, seen.current, now)
      }
      return seen.changed.map { $0.duration(to: now) < .milliseconds(500) } == true ? seen.previous : nil
    }
    return responder.withLock { responder in
      // A command read just after the host changed speed was most likely written before.
      responder.hostSpeed = input ? (recent ?? host) : host
      guard let speaking = responder.lineSpeed, let host else { return true }
      return speaking == host || (input && recent == speaking)
    }
  }

  /// The host's speed as last seen, the one before, and when it changed.
  private let hostSpeeds = Locked<(current: Int?, previous: Int?, changed: ContinuousClock.Instant?)>((nil, nil, nil))

  /// What bytes sent at one speed look like to a port at another: framing errors, no line
  /// ends, nothing a framer takes (and as many bytes, so a meter still sees traffic).
  static func garbled(_ bytes: [UInt8]) -> [UInt8] {
    bytes.map { ($0 &* 7) | 0x80 }
  }

  private func startAnswering() {
    queue.sync {
      let source = DispatchSource.makeReadSource(fileDescriptor: port.rawValue, queue: queue)
      source.setEventHandler { [self] in readCommands() }
      let letGo = sourceLetGo
      source.setCancelHandler { letGo.signal() }
      self.source = source
      source.activate()
    }
  }

  /// Pulls the plug at once: the receiver stops writing and answering, then `close` closes
  /// its port (the caller's), with nothing left that could write to the number afterwards.
  /// What the host sees is the line vanishing, at once, mid-epoch or mid-answer, as with a
  /// real cable; the play loop ends at its next epoch.
  public func unplug(_ close: () -> Void) {
    writing.withLock { $0 = true }
    stopAnswering()
    close()
  }

  /// Returns once Dispatch has let go of the port: whoever closes it next may do so safely
  /// (a number closed while a source still watches it leaves the next source on that number
  /// deaf).
  private func stopAnswering() {
    let cancelled = queue.sync {
      defer { source = nil }
      source?.cancel()
      return source != nil
    }
    if cancelled { sourceLetGo.wait() }
  }

  /// On `queue`: what was written to the receiver, its UBX commands answered at once.
  private func readCommands() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    guard let count = try? port.read(into: &buffer), count > 0 else { return }
    // Sent at another speed than it listens at, a command is noise to the receiver.
    guard speaksAtHostSpeed(input: true) else { return }
    guard let responder else { return }
    var answers: [UInt8] = []
    var text: [UInt8] = []
    buffer[0..<count].withUnsafeBytes { raw in
      splitter.split(
        raw, text: { text += $0 },
        frame: { frame in
          switch frame {
          case .ubx(let command): answers += responder.withLock { $0.respond(to: command) }
          case .rtcm3(let correction): responder.withLock { $0.take(correction, at: .now) }
          }
        })
    }
    // Proprietary sentences (`$PMTK…`, `$PSRF…`), a line at a time.
    for byte in text {
      if byte == 0x0A {
        if let sentence = ProprietarySentence(line: line) { answers += responder.withLock { $0.respond(to: sentence) } }
        line.removeAll(keepingCapacity: true)
      } else if line.count < 256 {
        line.append(byte)
      }
    }
    if !answers.isEmpty { write(answers) }
  }
}
