/// Each message type's way into its epoch: the sentence's key, its time, and what it merges.
/// ``FixDecoder`` decodes each sentence straight into this typed path, so no ``Message`` (a
/// large value) is built and copied on the way.
extension EpochAssembler {
  /// Adds one decoded message of the stream, in the order received.
  public mutating func add(_ message: Message) {
    switch message {
    case .gga(let m): add(m)
    case .rmc(let m): add(m)
    case .gsa(let m): add(m)
    case .gsv(let m): add(m)
    case .vtg(let m): add(m)
    case .gll(let m): add(m)
    case .zda(let m): add(m)
    case .gns(let m): add(m)
    case .gst(let m): add(m)
    case .hdt(let m): add(m)
    case .ths(let m): add(m)
    case .txt(let m): add(m)
    case .unsupported(let sentence): addUnsupported(talker: sentence.talker, type: sentence.type)
    }
  }

  /// Decodes `sentence` and adds it; throws, adding nothing, when a supported sentence holds a
  /// field that cannot be read.
  package mutating func add(_ sentence: SentenceView) throws(NMEAError) {
    guard sentence.talker != .proprietary, !sentence.isEncapsulated else {
      if sentence.talker == .proprietary, let maker = JammingSentence(sentence) { takeJammingStatus(sentence, from: maker) }
      return addUnsupported(talker: sentence.talker, type: sentence.type)
    }
    switch sentence.type {
    case .gga: add(try GGA(sentence))
    case .rmc: add(try RMC(sentence))
    case .gsa: add(try GSA(sentence))
    case .gsv: add(keepsSatellites ? try GSV(sentence) : try GSV(sentence) { _ in })
    case .vtg: add(try VTG(sentence))
    case .gll: add(try GLL(sentence))
    case .zda: add(try ZDA(sentence))
    case .gns: add(try GNS(sentence))
    case .gst: add(try GST(sentence))
    case .hdt: add(try HDT(sentence))
    case .ths: add(try THS(sentence))
    case .txt: add(try TXT(sentence))
    default: addUnsupported(talker: sentence.talker, type: sentence.type)
    }
  }

  mutating func add(_ gga: GGA) {
    receive(
      .init(talker: gga.talker, type: .gga), time: gga.time,
      position: Self.position(gga.latitude, gga.longitude, if: gga.quality != .invalid)
    ) {
      $0.merge(gga)
    }
  }
  mutating func add(_ rmc: RMC) {
    receive(
      .init(talker: rmc.talker, type: .rmc), time: rmc.time,
      position: Self.position(rmc.latitude, rmc.longitude, if: rmc.isValid != false && rmc.mode != .invalid, knots: rmc.speedKnots)
    ) {
      $0.merge(rmc)
    }
  }
  mutating func add(_ gll: GLL) {
    receive(
      .init(talker: gll.talker, type: .gll), time: gll.time,
      position: Self.position(gll.latitude, gll.longitude, if: gll.isValid != false && gll.mode != .invalid)
    ) {
      $0.merge(gll)
    }
  }
  mutating func add(_ gns: GNS) {
    receive(
      .init(talker: gns.talker, type: .gns), time: gns.time, position: Self.position(gns.latitude, gns.longitude, if: gns.mode != .invalid)
    ) {
      $0.merge(gns)
    }
  }
  mutating func add(_ vtg: VTG) { receive(.init(talker: vtg.talker, type: .vtg), time: nil) { $0.merge(vtg) } }
  mutating func add(_ gsa: GSA) {
    receive(.init(talker: gsa.talker, type: .gsa, detail: gsa.systemID ?? 0), time: nil) { $0.merge(gsa) }
  }
  mutating func add(_ zda: ZDA) {
    receive(.init(talker: zda.talker, type: .zda), time: zda.time) { epoch in epoch.date = zda.date ?? epoch.date }
  }
  mutating func add(_ gst: GST) { receive(.init(talker: gst.talker, type: .gst), time: gst.time) { $0.gst = gst } }
  mutating func add(_ hdt: HDT) {
    receive(.init(talker: hdt.talker, type: .hdt), time: nil) { epoch in epoch.trueHeading = hdt.heading ?? epoch.trueHeading }
  }
  mutating func add(_ ths: THS) {
    receive(.init(talker: ths.talker, type: .ths), time: nil) { epoch in if ths.isValid { epoch.trueHeading = ths.heading } }
  }

  /// The position a sentence states with a fix, for rule 1's exception.
  @inline(__always)
  static func position(_ latitude: Coordinate?, _ longitude: Coordinate?, if valid: Bool, knots: FixedPoint? = nil) -> StatedPosition? {
    guard valid, let latitude, let longitude else { return nil }
    return StatedPosition(latitude: latitude, longitude: longitude, speed: knots.map { $0.doubleValue * metresPerSecondPerKnot })
  }

  /// GSV updates the sky, which outlives epochs, whether or not an epoch is open.
  mutating func add(_ gsv: GSV) {
    if keepsSatellites { sky.add(gsv) }
    let detail = ((gsv.signalID ?? 0) + 1) * 2 + (gsv.isLast ? 1 : 0)
    receive(.init(talker: gsv.talker, type: .gsv, detail: detail), time: nil) { _ in }
  }

  mutating func add(_ txt: TXT) {
    if let state = Self.antennaState(txt.text) { antennaText = (state, (antennaText?.said ?? 0) + 1) }
    let detail = (txt.messageNumber ?? 1) >= (txt.messageCount ?? 1) ? 1 : 0
    receive(.init(talker: txt.talker, type: .txt, detail: detail), time: nil) { _ in }
  }

  /// The antenna supervisor's word in a TXT (u-blox's, and others' that copy it, at start and
  /// at each change): `ANTSTATUS=INIT` 0, `DONTKNOW` 1, `OK` 2, `SHORT` 3, `OPEN` 4 (the order
  /// of `MON-HW`'s `aStatus`); any other text is none.
  package static func antennaState(_ text: String) -> Int? {
    guard text.utf8.starts(with: "ANTSTATUS=".utf8) else { return nil }
    let word = text.utf8.dropFirst(10).prefix(while: { $0 != UInt8(ascii: " ") })
    return ["INIT", "DONTKNOW", "OK", "SHORT", "OPEN"].firstIndex { word.elementsEqual($0.utf8) }
  }

  /// A receiver's jamming state in its maker's sentence: 1 healthy, 2 warning, 3 critical (0,
  /// or nothing, while its detector has not judged: not taken). Quectel's carries its message
  /// version first, which must be 1. Another version, or a state out of range, is no state
  /// (and no error: the sentence still takes its place in the cycle).
  mutating func takeJammingStatus(_ sentence: SentenceView, from maker: JammingSentence) {
    let state = try? sentence.withFields { (fields: inout Fields) throws(NMEAError) -> Int? in
      if maker == .quectel, try fields.integer() != 1 { return nil }
      return try fields.integer()
    }
    guard let state, (1...3).contains(state) else { return }
    jammingStatus = (state, (jammingStatus?.said ?? 0) + 1, maker)
  }

  /// A sentence the assembler does not read still takes its place in the cycle.
  mutating func addUnsupported(talker: Talker, type: SentenceType) {
    receive(.init(talker: talker, type: type), time: nil) { _ in }
  }
}
