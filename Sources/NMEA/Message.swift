/// A decoded sentence: one case per supported type, and ``unsupported(_:)`` for the rest
/// (proprietary `$P…`, AIS `!AIVDM`, anything else), which stay available as raw sentences.
public enum Message: Hashable, Sendable {
  case gga(GGA)
  case rmc(RMC)
  case gsa(GSA)
  case gsv(GSV)
  case vtg(VTG)
  case gll(GLL)
  case zda(ZDA)
  case gns(GNS)
  case gst(GST)
  case hdt(HDT)
  case ths(THS)
  case txt(TXT)
  case unsupported(Sentence)

  /// Decodes a framed sentence. Throws ``NMEAError`` when a supported sentence holds a field
  /// that cannot be read; callers count that and skip the sentence.
  public init(_ sentence: Sentence) throws(NMEAError) {
    guard sentence.talker != .proprietary, !sentence.isEncapsulated else {
      self = .unsupported(sentence)
      return
    }
    switch sentence.type {
    case .gga: self = .gga(try GGA(sentence))
    case .rmc: self = .rmc(try RMC(sentence))
    case .gsa: self = .gsa(try GSA(sentence))
    case .gsv: self = .gsv(try GSV(sentence))
    case .vtg: self = .vtg(try VTG(sentence))
    case .gll: self = .gll(try GLL(sentence))
    case .zda: self = .zda(try ZDA(sentence))
    case .gns: self = .gns(try GNS(sentence))
    case .gst: self = .gst(try GST(sentence))
    case .hdt: self = .hdt(try HDT(sentence))
    case .ths: self = .ths(try THS(sentence))
    case .txt: self = .txt(try TXT(sentence))
    default: self = .unsupported(sentence)
    }
  }

  /// The sending talker.
  public var talker: Talker {
    switch self {
    case .gga(let m): m.talker
    case .rmc(let m): m.talker
    case .gsa(let m): m.talker
    case .gsv(let m): m.talker
    case .vtg(let m): m.talker
    case .gll(let m): m.talker
    case .zda(let m): m.talker
    case .gns(let m): m.talker
    case .gst(let m): m.talker
    case .hdt(let m): m.talker
    case .ths(let m): m.talker
    case .txt(let m): m.talker
    case .unsupported(let sentence): sentence.talker
    }
  }

  /// The time of day the message is stamped with, for the types that carry one.
  public var time: UTCTime? {
    switch self {
    case .gga(let m): m.time
    case .rmc(let m): m.time
    case .gll(let m): m.time
    case .zda(let m): m.time
    case .gns(let m): m.time
    case .gst(let m): m.time
    default: nil
    }
  }
}
