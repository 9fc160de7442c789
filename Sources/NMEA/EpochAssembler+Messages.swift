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
      if sentence.talker == .proprietary, sentence.type == Self.mediatekJamming { try takeJammingStatus(sentence) }
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
    let detail = (txt.messageNumber ?? 1) >= (txt.messageCount ?? 1) ? 1 : 0
    receive(.init(talker: txt.talker, type: .txt, detail: detail), time: nil) { _ in }
  }

  /// A sentence the assembler does not read still takes its place in the cycle.
  /// MediaTek's `$PMTKSPF,n`: its jamming monitor's state, 1 healthy, 2 warning, 3 critical
  /// (Quectel's MC60 and others send it after the epoch's NMEA once jamming detection is on).
  static let mediatekJamming = SentenceType("MTKSPF")

  mutating func takeJammingStatus(_ sentence: SentenceView) throws(NMEAError) {
    let state = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in try fields.integer(in: 1...3) }
    guard let state else { return }
    jammingStatus = (state, (jammingStatus?.said ?? 0) + 1)
  }

  mutating func addUnsupported(talker: Talker, type: SentenceType) {
    receive(.init(talker: talker, type: type), time: nil) { _ in }
  }
}
