import Framing
import NMEA
import NMEASimulation
import SourceStatus
import TestHelpers
import Testing
import Transports

/// A capture of a u-blox that says its antenna and jamming (`MON-HW` beside its NMEA) replays
/// the states with the epochs they were said before: each fix follows the state said before
/// its sentences (or, UBX only, its epoch's messages), at any speed, and no fix is told a state
/// said after it.
@Suite(.timeLimit(.minutes(3))) struct ReplayedIntegrityTests {
  static let simulation = Simulation(route: Route.demoDrive.lasting(40), profile: .ublox)

  static func hardware(antenna: Int, jamming: Int, indicator: Int) -> [UInt8] {
    var payload = [UInt8](repeating: 0, count: 60)
    (payload[20], payload[21], payload[22], payload[45]) = (UInt8(antenna), 1, UInt8(jamming << 2), UInt8(indicator))
    return UBXFrame(messageClass: 0x0A, id: 0x09, payload: payload).bytes
  }

  /// The jamming indicator each fix was made under, in order: `nil` before any was said; and
  /// how the replay ended.
  static func indicators(at speed: ReplaySpeed, _ stream: [UInt8]) async -> (made: [Int?], end: SourceEvent?) {
    let receiver = Receiver(ReplaySource(capture: .bytes(stream), speed: speed, clock: ContinuousClock()))
    let events = receiver.events(wanting: .fixes)
    let running = Task { await receiver.run() }
    var current: Int?
    var made: [Int?] = []
    var end: SourceEvent?
    for await event in events {
      if case .integrity(let integrity) = event { current = integrity.jammingIndicator }
      if case .fix(let fix) = event, fix.hasPosition { made.append(current) }
      if case .status(let status) = event, case .ended = status { end = status }
      if case .status(let status) = event, case .stopped = status { end = status }
      if end != nil { break }
    }
    running.cancel()
    return (made, end)
  }

  /// The simulation's epochs as `bytes` gives each, with `MON-HW` said at the start of every
  /// fifth epoch from the tenth on, its indicator rising by 10; and the indicator in force
  /// at each epoch.
  static func capture(_ bytes: (Simulation.Epoch) -> [UInt8]) -> (stream: [UInt8], said: [Int?]) {
    var stream: [UInt8] = []
    var said: [Int?] = []
    for (index, epoch) in simulation.epochs().enumerated() {
      if index >= 10, index % 5 == 0 { stream += hardware(antenna: 2, jamming: 1, indicator: index * 2) }
      stream += bytes(epoch)
      said.append(index >= 10 ? index / 5 * 10 : nil)
    }
    return (stream, said)
  }

  @Test(arguments: [ReplaySpeed.max, .multiplied(by: 200)])
  func eachFixFollowsTheStateSaidBeforeItsSentences(speed: ReplaySpeed) async {
    let (stream, expected) = Self.capture(\.bytes)
    let (made, end) = await Self.indicators(at: speed, Self.simulation.header + stream)
    #expect(made == expected)
    #expect(end.map { if case .ended = $0 { true } else { false } } == true, "\(String(describing: end))")
  }

  /// The same receiver left sending UBX only (NAV-PVT, NAV-SAT, NAV-DOP, NAV-EOE): each fix
  /// follows the state said before its epoch's messages. (The first UBX epoch makes no fix: a
  /// receiver that sends both is served by its NMEA, and UBX only from the second epoch
  /// without it.)
  @Test(arguments: [ReplaySpeed.max, .multiplied(by: 200)])
  func aUBXOnlyCapturesFixesFollowTheStateSaidBeforeTheirEpoch(speed: ReplaySpeed) async {
    let (stream, said) = Self.capture(Self.simulation.ubx)
    let expected = Array(said.dropFirst())
    let (made, end) = await Self.indicators(at: speed, stream)
    #expect(made == expected)
    // A UBX-only capture is a capture: it ends saying what it played, not that it held nothing.
    guard case .ended(let reason) = end else {
      Issue.record("the replay ended with \(String(describing: end))")
      return
    }
    var frames = 0
    var splitter = StreamSplitter()
    stream.withUnsafeBytes { splitter.split($0, text: { _ in }, frame: { _ in frames += 1 }) }
    #expect("\(reason)".contains("\(expected.count) epochs"), "\(reason)")
    #expect("\(reason)".contains("from \(frames) UBX frames"), "\(reason)")
  }

  /// UBX frames that were all thrown away (bad checksums) are no capture: it still ends saying
  /// it held no data, as random bytes do.
  @Test func brokenUBXFramesAloneAreNoCapture() async {
    var broken = UBXFrame(messageClass: 0x0A, id: 0x09, payload: [UInt8](repeating: 0, count: 60)).bytes
    broken[broken.count - 1] ^= 0x55
    let (made, end) = await Self.indicators(at: .max, broken + broken + broken)
    #expect(made.isEmpty)
    guard case .stopped(let error) = end, case .captureHasNoData = error else {
      Issue.record("the replay ended with \(String(describing: end))")
      return
    }
  }
}

/// A MediaTek says its jamming monitor's state in `$PMTKSPF` after each second's epoch: the
/// state reaches the listeners before the fix of the burst it came in, replayed as live.
@Suite(.timeLimit(.minutes(3))) struct MediaTekJammingTests {
  /// The MediaTek's drive, jammed from 8 s on.
  static let simulation = Simulation(route: Route.demoDrive.lasting(20), profile: .mtk, attack: Attack(.jamming, at: 8))

  @Test func aJammedMediaTeksStatusHoldsForItsBurst() async {
    await Self.expectTheAttacksStates(in: Self.simulation.capture(), from: .mediatekJamming)
  }

  /// Quectel's and Airoha's sentences say the same states: the jammed MediaTek's drive with
  /// each `$PMTKSPF` replaced by the other maker's sentence replays alike.
  @Test(arguments: [("PQTMJAMMINGSTATUS", SignalIntegrity.Source.quectelJamming), ("PAIRSPF", .airohaJamming)])
  func otherMakersSentencesSayTheSameStates(address: String, source expected: SignalIntegrity.Source) async {
    let lines = String(decoding: Self.simulation.capture(), as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
    let capture = lines.map { line -> String in
      guard line.hasPrefix("$PMTKSPF,"), let state = Int(line.dropFirst(9).prefix(1)) else { return String(line) }
      return Self.jammingSentence(address, state: state)
    }.joined(separator: "\r\n")
    #expect(!capture.contains("PMTKSPF") && capture.contains(address))
    await Self.expectTheAttacksStates(in: Array(capture.utf8), from: expected)
  }

  /// Replays `capture` of ``simulation``: healthy until the attack, a warning from its first
  /// second, critical from 5 s on, each said by `expected` before the fix of its burst.
  static func expectTheAttacksStates(in capture: [UInt8], from expected: SignalIntegrity.Source) async {
    let receiver = Receiver(ReplaySource(capture: .bytes(capture), speed: .max, clock: ContinuousClock()))
    let events = receiver.events(wanting: .fixes)
    let running = Task { await receiver.run() }
    let start = simulation.route.start.nanosecondsSince1970
    var (jamming, source) = (JammingState.unknown, SignalIntegrity.Source?.none)
    var heard: [Int: JammingState] = [:]
    for await event in events {
      if case .integrity(let integrity) = event { (jamming, source) = (integrity.jamming, integrity.jammingSource) }
      if case .fix(let fix) = event, let stamp = fix.timestamp {
        heard[Int((stamp.nanosecondsSince1970 - start) / 1_000_000_000)] = jamming
      }
      if case .status(.ended) = event { break }
    }
    running.cancel()
    #expect(source == expected)
    #expect((1..<8).allSatisfy { heard[$0] == .ok } && (8..<13).allSatisfy { heard[$0] == .warning }, "\(heard.sorted { $0.key < $1.key })")
    #expect((13..<20).allSatisfy { heard[$0] == .critical }, "\(heard.sorted { $0.key < $1.key })")
  }

  /// `$PQTMJAMMINGSTATUS,1,<state>` (its message version first) or `$PAIRSPF,<state>`.
  static func jammingSentence(_ address: String, state: Int, version: Int = 1) -> String {
    var writer = NMEAWriter()
    writer.begin(address)
    if address == "PQTMJAMMINGSTATUS" { writer.integer(version) }
    writer.integer(state)
    writer.end()
    return String(decoding: writer.bytes.dropLast(2), as: UTF8.self)
  }

  /// pynmeagps writes Quectel's sentence byte for byte as the test above does, for every state
  /// and version; the decoder takes a state of 1 to 3 of version 1 only (0: not judged yet).
  @Test(.enabled(if: PythonModules.available(["pynmeagps"]), "pynmeagps is not installed (pip install pynmeagps)"))
  func quectelsSentenceIsReadAsPynmeagpsWritesIt() async throws {
    let cases = (1...2).flatMap { version in (0...4).map { (version, $0) } }
    let script = """
      import sys
      from pynmeagps import NMEAMessage
      for pair in sys.argv[1:]:
          version, state = pair.split(",")
          print(NMEAMessage("P", "QTMJAMMINGSTATUS", 0, msgver=int(version), jammingstatus=int(state)).serialize().decode().strip())
      """
    let written = try await PythonModules.run(script, arguments: cases.map { "\($0.0),\($0.1)" }).split(separator: "\n").map(String.init)
    #expect(written == cases.map { Self.jammingSentence("PQTMJAMMINGSTATUS", state: $0.1, version: $0.0) })
    for ((version, state), line) in zip(cases, written) {
      var decoder = FixDecoder()
      decoder.append(Array((line + "\r\n").utf8))
      _ = decoder.next()
      #expect(decoder.framer.counters.sentences == 1, "\(line)")
      let taken = version == 1 && (1...3).contains(state)
      #expect(decoder.assembler.jammingStatus.map { [$0.state] } == (taken ? [state] : nil), "\(line)")
      #expect(decoder.assembler.jammingStatus.map { $0.maker == .quectel } ?? true)
    }
  }

  /// A u-blox's antenna supervisor says its state in a TXT at start and at each change: it
  /// holds from the burst it came in, and `SHORT` is an alarm (`OPEN` is not, alone).
  @Test func anAntennaSaidShortInATXTHoldsFromItsBurst() async {
    let simulation = Simulation(route: Route.demoDrive.lasting(20), profile: .sirf)
    var lines = String(decoding: simulation.capture(), as: UTF8.self).split(separator: "\r\n").map(String.init)
    let bursts = lines.indices.filter { lines[$0].hasPrefix("$GPGGA") }
    for (burst, word) in [(12, "SHORT"), (6, "OPEN"), (0, "OK")] {
      var writer = NMEAWriter()
      writer.begin("GPTXT")
      for field in ["01", "01", "02", "ANTSTATUS=" + word] { writer.field(field) }
      writer.end()
      lines.insert(String(decoding: writer.bytes.dropLast(2), as: UTF8.self), at: bursts[burst])
    }
    let receiver = Receiver(
      ReplaySource(capture: .bytes(Array((lines.joined(separator: "\r\n") + "\r\n").utf8)), speed: .max, clock: ContinuousClock()))
    let events = receiver.events(wanting: .fixes)
    let running = Task { await receiver.run() }
    var integrity = SignalIntegrity()
    var heard: [(AntennaStatus, Bool)] = []
    for await event in events {
      if case .integrity(let said) = event { integrity = said }
      if case .fix = event { heard.append((integrity.antenna, integrity.isAlarming)) }
      if case .status(.ended) = event { break }
    }
    running.cancel()
    #expect(integrity.antennaSource == .antennaText)
    #expect(heard.count == 20)
    #expect(heard[..<6].allSatisfy { $0 == (.ok, false) } && heard[6..<12].allSatisfy { $0 == (.open, false) }, "\(heard)")
    #expect(heard[12...].allSatisfy { $0 == (.short, true) }, "\(heard)")
    // A text that is not the supervisor's word is no state.
    #expect(EpochAssembler.antennaState("ANTSTATUS=") == nil && EpochAssembler.antennaState("ANTENNA OK") == nil)
    #expect(EpochAssembler.antennaState("ANTSTATUS=DONTKNOW") == 1)
  }

  @Test func onlyAStateOfOneToThreeIsTaken() {
    var decoder = FixDecoder()
    decoder.append(Array("$PMTKSPF,2*59\r\n".utf8))
    _ = decoder.next()
    #expect(decoder.assembler.jammingStatus?.state == 2 && decoder.assembler.jammingStatus?.said == 1)
    for line in ["$PMTKSPF,9*52\r\n", "$PMTKSPF,*6B\r\n"] {
      decoder.append(Array(line.utf8))
      _ = decoder.next()
    }
    #expect(decoder.assembler.jammingStatus?.state == 2 && decoder.assembler.jammingStatus?.said == 1)
  }
}
