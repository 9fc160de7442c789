import NMEA

/// A simulated receiver travelling a ``Route``: the bytes it would send, epoch by epoch, and the
/// truth behind each epoch. The same simulation always gives the same bytes.
///
/// ```swift
/// let simulation = Simulation(route: route, profile: .sirf)
/// let capture = simulation.capture()               // a whole capture, header included
/// for epoch in simulation.epochs() { … }           // or epoch by epoch, with the truth
/// ```
public struct Simulation: Hashable, Sendable {
  public var route: Route
  public var profile: ReceiverProfile
  /// Epochs per second.
  public var rate: Double
  /// Seeds the sky and the receiver's noise.
  public var seed: UInt64
  /// The 1σ error, metres, the receiver adds to each position (north and east alike); 0
  /// reports the truth exactly. A receiver's *stated* accuracy is its HDOP × a user-equivalent
  /// range error, independent of this, so a test can make a receiver that understates its error.
  public var positionNoise: Double
  /// The horizontal dilution of precision the receiver reports.
  public var hdop: Double
  /// Jamming or spoofing from a moment of the route on (``Attack``); `nil`, none.
  public var attack: Attack?

  public init(
    route: Route, profile: ReceiverProfile = .ublox, rate: Double? = nil, seed: UInt64 = 1, positionNoise: Double = 0,
    hdop: Double = 0.9, attack: Attack? = nil
  ) {
    self.route = route
    self.profile = profile
    self.rate = rate ?? profile.defaultRate
    self.seed = seed
    self.positionNoise = positionNoise
    self.hdop = hdop
    self.attack = attack
  }

  /// One epoch: where the receiver truly was, and what it sent.
  public struct Epoch: Sendable {
    public var truth: RouteState
    /// The sentences of this epoch, CRLF-terminated.
    public var bytes: [UInt8]
    /// The satellites in view, as its GSV lists them.
    public var view: [Sky.View] = []
    /// Under a planned ``Attack``, what a u-blox says of its signals before this epoch's
    /// sentences (`MON-HW`, `NAV-STATUS`), once a second; empty otherwise.
    public var integrity: [UInt8] = []

    /// What the receiver sends for the epoch: its integrity messages, then its sentences.
    public var sent: [UInt8] { integrity.isEmpty ? bytes : integrity + bytes }
  }

  /// The epoch as a u-blox sends it in UBX (`NAV-PVT`, `NAV-SAT`, `NAV-DOP`, `NAV-EOE`): the
  /// same position, time and satellites as its sentences, at UBX's precision (spoofed as they
  /// are, under a spoofing ``attack``).
  public func ubx(_ epoch: Epoch) -> [UInt8] {
    var reported = epoch.truth
    if let attack {
      let elapsed = Double(epoch.truth.time.nanosecondsSince1970 - route.start.nanosecondsSince1970) / 1e9
      let (north, ahead) = attack.spoofedOffset(at: elapsed)
      reported.latitude += north / 6_371_008.8 * 180 / .pi
      reported.time = UTCTimestamp(nanosecondsSince1970: reported.time.nanosecondsSince1970 + ahead)
    }
    return UBXNavigationWriter.epoch(reported, hdop: hdop, view: epoch.view)
  }

  /// What a u-blox sends before `epoch`'s sentences of its monitors when it was told to send
  /// `messages` (`configure --integrity on`): those, and under a planned ``attack`` the ones
  /// ``Epoch/integrity`` holds, once a second.
  public func integrity(of epoch: Epoch, sending messages: Set<IntegrityMessage>) -> [UInt8] {
    guard !messages.isEmpty, epoch.truth.time.nanosecondsSince1970 % 1_000_000_000 == 0 else { return epoch.integrity }
    let elapsed = Double(epoch.truth.time.nanosecondsSince1970 - route.start.nanosecondsSince1970) / 1e9
    let all = attack == nil ? messages : messages.union([.hardwareMonitor, .navigationStatus])
    return IntegrityMessage.frames(all, attack: attack, at: elapsed, time: epoch.truth.time, hasFix: epoch.truth.hasFix)
  }

  /// The epochs, generated as they are read.
  public func epochs() -> Epochs { Epochs(simulation: self) }

  /// The capture's header comments: the start date (for receivers that send none) and the device.
  public var header: [UInt8] {
    var writer = NMEAWriter(reservingCapacity: 128)
    writer.comment("Date: \(route.start.date)")
    writer.comment("Device: simulated \(profile.summary), by gpsbridge simulate")
    return writer.bytes
  }

  /// The whole capture: ``header`` and every epoch.
  public func capture() -> [UInt8] {
    var bytes = header
    for epoch in epochs() { bytes += epoch.sent }
    return bytes
  }

  public struct Epochs: Sequence, Sendable {
    let simulation: Simulation

    public func makeIterator() -> Iterator { Iterator(simulation: simulation) }

    public struct Iterator: IteratorProtocol, Sendable {
      var states: Route.States.Iterator
      var receiver: ReceiverWriter

      init(simulation: Simulation) {
        states = simulation.route.states(rate: simulation.rate).makeIterator()
        receiver = ReceiverWriter(simulation: simulation)
      }

      public mutating func next() -> Epoch? {
        guard let truth = states.next() else { return nil }
        let bytes = receiver.sentences(for: truth)
        return Epoch(truth: truth, bytes: bytes, view: receiver.lastView, integrity: receiver.lastIntegrity)
      }
    }
  }
}
