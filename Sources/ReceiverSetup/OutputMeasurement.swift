import Framing
import NMEA
import Plumbing
import Transports

/// What a receiver sends, measured over a few epochs: its rate by its own clock (the times its
/// epochs carry), the standard sentences it sends, and whether UBX navigation comes.
public struct OutputMeasurement: Hashable, Sendable {
  /// Epochs a second, from the steps between the epochs' own times (their mean, a missed
  /// epoch's long step left out); `nil` with fewer than three epochs.
  public var rate: Double?
  /// The standard NMEA sentences seen, by type.
  public var sentences: Set<NMEASentenceType>
  /// UBX frames seen (other than answers to requests).
  public var ubxFrames: Int
  /// Epochs seen.
  public var epochs: Int
  /// The satellite systems whose satellites it lists (by the talkers of its GSV sentences).
  public var systems: Set<SatelliteSystem>
  /// Whether its RMC has no mode field, as NMEA 2.2 (a SiRF's) has none; false without RMC.
  package var nmea22 = false

  public init(rate: Double?, sentences: Set<NMEASentenceType>, ubxFrames: Int, epochs: Int, systems: Set<SatelliteSystem> = []) {
    self.rate = rate
    self.sentences = sentences
    self.ubxFrames = ubxFrames
    self.epochs = epochs
    self.systems = systems
  }

  /// Nothing measured: for reading what a receiver says of itself alone.
  static let nothing = OutputMeasurement(rate: nil, sentences: [], ubxFrames: 0, epochs: 0)

  /// "5.0 Hz, GGA RMC" for people.
  public var summary: String {
    let rate = rate.map { (($0 * 10).rounded() / 10).description + " Hz" } ?? "no rate (fewer than 3 epochs)"
    let sentences = sentences.isEmpty ? "no NMEA" : sentences.sorted().map(\.rawValue).joined(separator: " ")
    return "\(rate), \(sentences)" + (ubxFrames > 0 ? ", \(ubxFrames) UBX frames" : "")
  }
}

/// Gathers a receiver's output from ``start()`` on, for an ``OutputMeasurement``.
final class OutputMeter: Sendable {
  private struct State {
    var times: [Double] = []
    var sentences: Set<NMEASentenceType> = []
    var systems: Set<SatelliteSystem> = []
    var ubxFrames = 0
    /// RMC sentences seen, and those with a mode field.
    var rmc = 0
    var rmcWithMode = 0
  }

  /// GSV's talkers and the systems they list.
  static let talkers: [String: SatelliteSystem] = [
    "GP": .gps, "GL": .glonass, "GA": .galileo, "GB": .beidou, "BD": .beidou, "GQ": .qzss,
  ]
  private let state = Locked(State())
  private let receiver: Receiver
  private let listener: Receiver.Listener

  init(_ receiver: Receiver) {
    self.receiver = receiver
    let state = self.state
    listener = receiver.observe(wanting: [.fixes, .sentences, .frames]) { event in
      switch event {
      case .fix(let fix):
        let time = fix.timestamp?.secondsSince1970 ?? Double(fix.time.nanosecondsSinceMidnight) / 1e9
        state.withLock { $0.times.append(time) }
      case .sentence(let bytes):
        // `$GPGGA,…`: the type is the three letters after the talker.
        guard bytes.count > 6, bytes[0] == UInt8(ascii: "$") else { return }
        let type = String(decoding: bytes[3..<6], as: UTF8.self)
        guard let known = NMEASentenceType(rawValue: type) else { return }
        let system = known == .gsv ? Self.talkers[String(decoding: bytes[1..<3], as: UTF8.self)] : nil
        // NMEA 2.3 added RMC's mode: twelve fields after the address, where 2.2 has eleven.
        let fields = known == .rmc ? bytes.prefix { $0 != UInt8(ascii: "*") }.count { $0 == UInt8(ascii: ",") } : 0
        state.withLock { state in
          state.sentences.insert(known)
          if let system { state.systems.insert(system) }
          if known == .rmc {
            state.rmc += 1
            if fields >= 12 { state.rmcWithMode += 1 }
          }
        }
      case .frame(.ubx(let frame)):
        // Navigation, not answers: NAV (0x01) class only.
        if frame.messageClass == 0x01 { state.withLock { $0.ubxFrames += 1 } }
      default:
        break
      }
    }
  }

  deinit { receiver.stopListening(listener) }

  /// Starts afresh.
  func start() { state.withLock { $0 = State() } }

  /// Epochs seen since ``start()``.
  var epochs: Int { state.withLock { $0.times.count } }

  /// What was seen since ``start()``.
  var measurement: OutputMeasurement {
    state.withLock { state in
      let steps = zip(state.times.dropFirst(), state.times).map { $0 - $1 }.filter { $0 > 0 }.sorted()
      // The mean step, of those near the median: times said to the hundredth (hhmmss.ss) make
      // an 18 Hz receiver's steps 50 and 60 ms, whose median is neither; a missed epoch's
      // double step is left out.
      let median = steps.isEmpty ? 0 : steps[steps.count / 2]
      let near = steps.filter { $0 < median * 1.5 }
      let rate = steps.count >= 2 && !near.isEmpty ? Double(near.count) / near.reduce(0, +) : nil
      var measured = OutputMeasurement(
        rate: rate, sentences: state.sentences, ubxFrames: state.ubxFrames, epochs: state.times.count, systems: state.systems)
      measured.nmea22 = state.rmc > 0 && state.rmcWithMode == 0
      return measured
    }
  }
}
