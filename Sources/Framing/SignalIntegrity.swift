/// What a receiver says of its signals' integrity (jamming, spoofing, its antenna), gathered
/// from whichever of u-blox's messages it sends: one state per receiver, updated frame by
/// frame, that a served TPV, a status page or a time service reads as it is at each epoch.
///
/// Where two messages say the same thing, the more specific one wins once it has spoken (until
/// its detector is turned off): `SEC-SIG` (when its detector is on) over `MON-RF` over `MON-HW` for
/// jamming, `SEC-SIG` over `NAV-STATUS` for spoofing, `MON-RF` over `MON-HW` for the antenna.
/// A receiver with several RF blocks (one per band) is as bad as its worst block, as gpsd
/// takes it.
public struct SignalIntegrity: Hashable, Sendable {
  /// The message a state came from.
  public enum Source: String, Hashable, Sendable {
    case hardwareMonitor = "MON-HW"
    case radioMonitor = "MON-RF"
    case navigationStatus = "NAV-STATUS"
    case signalSecurity = "SEC-SIG"
    /// MediaTek's `$PMTKSPF`: its jamming monitor's state (healthy, warning, critical).
    case mediatekJamming = "PMTKSPF"
    /// Quectel's `$PQTMJAMMINGSTATUS` (LC29H, LG290P and others): the same three states.
    case quectelJamming = "PQTMJAMMINGSTATUS"
    /// The antenna supervisor's `ANTSTATUS=` in a TXT sentence (u-blox, and others).
    case antennaText = "TXT"
    /// Airoha's `$PAIRSPF` (Quectel's LC76G and others on Airoha chips): the same three states.
    case airohaJamming = "PAIRSPF"
    /// gpsbridge's own evidence, for a receiver that says nothing of spoofing: every
    /// satellite's signal as strong as the others (see `SignalHeuristics` in Transports).
    case alikeSignals = "signals alike"
    /// gpsbridge's own evidence: the position moves away from where the receiver's own
    /// velocity takes it.
    case motion = "motion"
    /// gpsbridge's own evidence, live only: the receiver's time runs at another rate than
    /// this machine's raw clock (a slewed time).
    case timeRate = "time rate"
    /// gpsbridge's own evidence: every signal gone from one epoch to the next, and the fix
    /// kept (not as dead reckoning).
    case signalsLost = "signals lost"

    /// How specific the message is: a higher one is not overridden by a lower one. The
    /// receiver's own word, of any message, is above gpsbridge's evidence.
    fileprivate var rank: Int {
      switch self {
      case .alikeSignals, .motion, .timeRate, .signalsLost: -1
      case .hardwareMonitor, .navigationStatus, .mediatekJamming, .quectelJamming, .airohaJamming, .antennaText: 0
      case .radioMonitor: 1
      case .signalSecurity: 2
      }
    }

    /// Whether this is gpsbridge's own evidence rather than the receiver's word.
    package var isHeuristic: Bool { rank < 0 }
  }

  public private(set) var jamming: JammingState = .unknown
  public private(set) var jammingSource: Source?
  public private(set) var spoofing: SpoofingState = .unknown
  public private(set) var spoofingSource: Source?
  public private(set) var antenna: AntennaStatus = .unknown
  public private(set) var antennaPower: AntennaPower = .unknown
  public private(set) var antennaSource: Source?
  /// Continuous-wave interference, 0 (none) to 255 (strong), once a monitor said it: gpsd's `jam`.
  public private(set) var jammingIndicator: Int?
  private var indicatorSource: Source?

  public init() {}

  /// Takes one UBX frame (others are ignored); whether the state changed.
  public mutating func take(_ frame: UBXFrame) -> Bool {
    let before = self
    if let hardware = HardwareStatus(frame) {
      setJamming(hardware.jamming, from: .hardwareMonitor)
      setAntenna(hardware.antenna, hardware.antennaPower, from: .hardwareMonitor)
      setIndicator(hardware.jammingIndicator, from: .hardwareMonitor)
    } else if let radio = RadioStatus(frame), let first = radio.blocks.first {
      var worst = first
      for block in radio.blocks.dropFirst() {
        if block.jamming.rawValue > worst.jamming.rawValue { worst.jamming = block.jamming }
        if block.antenna.severity > worst.antenna.severity { (worst.antenna, worst.antennaPower) = (block.antenna, block.antennaPower) }
        worst.jammingIndicator = max(worst.jammingIndicator, block.jammingIndicator)
      }
      setJamming(worst.jamming, from: .radioMonitor)
      setAntenna(worst.antenna, worst.antennaPower, from: .radioMonitor)
      setIndicator(worst.jammingIndicator, from: .radioMonitor)
    } else if let status = NavigationStatus(frame) {
      setSpoofing(status.spoofing, from: .navigationStatus)
    } else if let security = SignalSecurity(frame) {
      // A detector turned off gives the word back to the messages below it.
      if security.jammingDetectionEnabled {
        setJamming(security.jamming, from: .signalSecurity)
      } else if jammingSource == .signalSecurity {
        (jamming, jammingSource) = (.unknown, nil)
      }
      if security.spoofingDetectionEnabled {
        setSpoofing(security.spoofing, from: .signalSecurity)
      } else if spoofingSource == .signalSecurity {
        (spoofing, spoofingSource) = (.unknown, nil)
      }
    }
    return self != before
  }

  /// Takes a jamming state from a maker's NMEA sentence (`$PMTKSPF`, `$PQTMJAMMINGSTATUS`,
  /// `$PAIRSPF`: 1 healthy, 2 warning, 3 critical); whether the state changed.
  package mutating func take(jamming state: Int, from source: Source) -> Bool {
    let before = self
    setJamming(state == 3 ? .critical : state == 2 ? .warning : .ok, from: source)
    return self != before
  }

  /// Takes the antenna's state from a TXT's `ANTSTATUS=` (its `aStatus` number: 0
  /// initialising, 1 not known, 2 ok, 3 short, 4 open); whether the state changed. Taken only
  /// while no UBX message has said the antenna's state (a u-blox sending both says the same
  /// in `MON-HW`, with its power): the source does not flip between them.
  package mutating func take(antennaText state: Int) -> Bool {
    guard let status = AntennaStatus(rawValue: state), antennaSource == nil || antennaSource == .antennaText else { return false }
    let before = self
    setAntenna(status, .unknown, from: .antennaText)
    return self != before
  }

  /// Whether it says what stops a time service, and is an alarm on the status page and for
  /// Home Assistant: spoofing indicated or affirmed, critical jamming, an antenna short.
  package var isAlarming: Bool {
    spoofing == .indicated || spoofing == .affirmed || jamming == .critical || antenna == .short
  }

  /// Whether `other` says the same states, from the same messages (the jamming indicator,
  /// which moves from one second to the next, aside): what a change worth telling people is.
  package func saysTheSameStates(as other: SignalIntegrity) -> Bool {
    var mine = self
    var theirs = other
    (mine.jammingIndicator, mine.indicatorSource) = (nil, nil)
    (theirs.jammingIndicator, theirs.indicatorSource) = (nil, nil)
    return mine == theirs
  }

  /// gpsbridge's own evidence of spoofing (`source`, a heuristic), or none (`nil`): it sets
  /// spoofing `indicated`, or takes it back to `unknown`, only while the receiver has said
  /// nothing of spoofing itself. Whether the state changed.
  package mutating func suspectSpoofing(_ source: Source?) -> Bool {
    guard spoofingSource?.isHeuristic ?? true else { return false }
    let before = (spoofing, spoofingSource)
    (spoofing, spoofingSource) = source.map { (.indicated, $0) } ?? (.unknown, nil)
    return before != (spoofing, spoofingSource)
  }

  private mutating func setJamming(_ state: JammingState, from source: Source) {
    guard source.rank >= (jammingSource?.rank ?? -1) else { return }
    jamming = state
    jammingSource = source
  }

  private mutating func setIndicator(_ value: Int, from source: Source) {
    guard source.rank >= (indicatorSource?.rank ?? -1) else { return }
    jammingIndicator = value
    indicatorSource = source
  }

  private mutating func setSpoofing(_ state: SpoofingState, from source: Source) {
    guard source.rank >= (spoofingSource?.rank ?? -1) else { return }
    spoofing = state
    spoofingSource = source
  }

  private mutating func setAntenna(_ status: AntennaStatus, _ power: AntennaPower, from source: Source) {
    guard source.rank >= (antennaSource?.rank ?? -1) else { return }
    antenna = status
    antennaPower = power
    antennaSource = source
  }
}

extension AntennaStatus {
  /// How bad: a short over an open feed over a good one over not knowing (gpsd's order).
  fileprivate var severity: Int {
    switch self {
    case .short: 3
    case .open: 2
    case .ok: 1
    case .initializing, .unknown: 0
    }
  }
}
