import Plumbing

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

  /// Decodes one line. Old gpsd versions' trailing commas (`,]`, `,}`) are read (see ``JSONValue``).
  public init(line: some Collection<UInt8>) throws(DecodingFailure) {
    do {
      let value = try JSONValue(parsing: line)
      guard case .object(let members) = value, case .string(let kind)? = members["class"] else {
        throw DecodingFailure(kind: .malformed, description: "not a gpsd report: no class")
      }
      func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONValueDecoder.decode(type, from: value) }
      switch kind {
      case "VERSION": self = .version(try decode(Version.self))
      case "DEVICES": self = .devices(try decode(Devices.self))
      case "DEVICE": self = .device(try decode(Device.self))
      case "WATCH": self = .watch(try decode(GPSDWatch.self))
      case "TPV": self = .tpv(try decode(TPV.self))
      case "SKY": self = .sky(try decode(SKY.self))
      case "GST": self = .gst(try decode(GST.self))
      case "ATT": self = .att(try decode(ATT.self))
      case "POLL": self = .poll(try decode(Poll.self))
      case "ERROR": self = .error(try decode(GPSDError.self))
      default: self = .unknown(kind)
      }
    } catch let failure as DecodingFailure {
      throw failure
    } catch {
      throw DecodingFailure(kind: .malformed, description: "not a gpsd report: \(error)")
    }
    if let field = implausibleField {
      throw DecodingFailure(kind: .outOfRange, description: "\(field) out of range")
    }
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
