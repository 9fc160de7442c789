import FoundationEssentials

/// One JSON object of gpsd's protocol, by its `class`: what a gpsd sends and what
/// `gpsbridge serve` writes, decoded here (``init(line:)``) and encoded here
/// (``write(into:)``) with the same types. The types use Swift names; gpsd's wire names are
/// their coding keys. Fields gpsd may leave out are optional: missing means unknown. Classes
/// this package has no use for are ``unknown(_:)``.
public enum GPSDReport: Hashable, Sendable {
  case version(Version)
  case devices(Devices)
  case device(Device)
  case watch(GPSDWatch)
  case tpv(TPV)
  case sky(SKY)
  case gst(GST)
  case att(ATT)
  case poll(Poll)
  case error(GPSDError)
  case unknown(String)

  /// Why a line could not be read as a report.
  public struct DecodingFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
      /// Not JSON, or not shaped like a gpsd report (no class, a field of the wrong type).
      case malformed
      /// A report holding a value no receiver can have (an altitude of 1e300 m).
      case outOfRange
    }

    public var kind: Kind
    public var description: String
  }

  private struct Envelope: Decodable {
    var `class`: String
  }

  /// Decodes one line. Old gpsd versions' trailing commas (`,]`, `,}`) are tolerated.
  public init(line: some Collection<UInt8>) throws(DecodingFailure) {
    let data = Data(Self.removingTrailingCommas(line))
    let decoder = JSONDecoder()
    do {
      let kind = try decoder.decode(Envelope.self, from: data).class
      switch kind {
      case "VERSION": self = .version(try decoder.decode(Version.self, from: data))
      case "DEVICES": self = .devices(try decoder.decode(Devices.self, from: data))
      case "DEVICE": self = .device(try decoder.decode(Device.self, from: data))
      case "WATCH": self = .watch(try decoder.decode(GPSDWatch.self, from: data))
      case "TPV": self = .tpv(try decoder.decode(TPV.self, from: data))
      case "SKY": self = .sky(try decoder.decode(SKY.self, from: data))
      case "GST": self = .gst(try decoder.decode(GST.self, from: data))
      case "ATT": self = .att(try decoder.decode(ATT.self, from: data))
      case "POLL": self = .poll(try decoder.decode(Poll.self, from: data))
      case "ERROR": self = .error(try decoder.decode(GPSDError.self, from: data))
      default: self = .unknown(kind)
      }
    } catch {
      throw DecodingFailure(kind: .malformed, description: "not a gpsd report: \(error)")
    }
    if let field = implausibleField {
      throw DecodingFailure(kind: .outOfRange, description: "\(field) out of range")
    }
  }

  /// Drops a comma that directly precedes `]` or `}` (whitespace between allowed), outside
  /// strings: gpsd before 3.18 wrote such commas in some lists.
  static func removingTrailingCommas(_ line: some Collection<UInt8>) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(line.count)
    var strings = JSONStringState()
    var pendingComma: Int?
    for byte in line {
      if strings.consume(byte) {
        pendingComma = nil
        output.append(byte)
        continue
      }
      switch byte {
      case UInt8(ascii: ","):
        pendingComma = output.count
        output.append(byte)
      case UInt8(ascii: "]"), UInt8(ascii: "}"):
        if let comma = pendingComma { output.remove(at: comma) }
        pendingComma = nil
        output.append(byte)
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
        output.append(byte)
      default:
        pendingComma = nil
        output.append(byte)
      }
    }
    return output
  }
}

extension GPSDReport {
  /// The report's `class`, as gpsd writes it.
  public var className: String {
    switch self {
    case .version: "VERSION"
    case .devices: "DEVICES"
    case .device: "DEVICE"
    case .watch: "WATCH"
    case .tpv: "TPV"
    case .sky: "SKY"
    case .gst: "GST"
    case .att: "ATT"
    case .poll: "POLL"
    case .error: "ERROR"
    case .unknown(let name): name
    }
  }
}
