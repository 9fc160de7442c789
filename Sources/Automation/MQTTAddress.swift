/// Where an MQTT broker is and the topic prefix to publish under:
/// `mqtt://[USER:PASSWORD@]HOST[:1883]/PREFIX`. Its description never says the password.
public struct MQTTAddress: Hashable, Sendable, CustomStringConvertible {
  public static let standardPort = 1883
  public var host: String
  public var port: Int
  /// The topics' first levels (`gpsbridge`, `home/boat`): no wildcard (`+`, `#`), no empty
  /// level at either end.
  public var prefix: String
  public var user: String?
  public var password: String?

  /// Why a URL is not a broker's address, in words a usage error can say.
  public enum ParseError: Error, Equatable, CustomStringConvertible {
    case notMQTT
    /// `mqtts://`: MQTT over TLS, which gpsbridge does not speak itself.
    case tls
    case badPort
    case wildcard(String)
    case emptyPrefix

    public var description: String {
      switch self {
      case .notMQTT: "it is not mqtt://[USER:PASSWORD@]HOST[:PORT]/PREFIX"
      case .tls:
        "gpsbridge does not speak TLS (mqtts://) itself: publish to a Mosquitto on this machine (mqtt://localhost/PREFIX)"
          + " that bridges to the TLS broker, as the documentation's 'A fleet of boxes' (AFleetOfBoxes.md) shows"
      case .badPort: "its port is not a number from 1 to 65535"
      case .wildcard(let prefix): "its topic prefix '\(prefix)' has a wildcard (+ or #), which MQTT allows only in subscriptions"
      case .emptyPrefix: "it has no topic prefix (like /gpsbridge at its end)"
      }
    }
  }

  public init(host: String, port: Int = MQTTAddress.standardPort, prefix: String, user: String? = nil, password: String? = nil) {
    self.host = host
    self.port = port
    self.prefix = prefix
    self.user = user
    self.password = password
  }

  public init(parsing text: String) throws(ParseError) {
    guard !text.lowercased().hasPrefix("mqtts://") else { throw .tls }
    guard text.hasPrefix("mqtt://") else { throw .notMQTT }
    let rest = text.dropFirst("mqtt://".count)
    guard let slash = rest.firstIndex(of: "/") else { throw .emptyPrefix }
    var authority = rest[..<slash]
    let prefix = String(rest[rest.index(after: slash)...])
    var user: String?
    var password: String?
    if let at = authority.lastIndex(of: "@") {
      let credentials = authority[..<at]
      authority = authority[authority.index(after: at)...]
      if let colon = credentials.firstIndex(of: ":") {
        user = Self.percentDecoded(credentials[..<colon])
        password = Self.percentDecoded(credentials[credentials.index(after: colon)...])
      } else {
        user = Self.percentDecoded(credentials)
      }
    }
    var host = String(authority)
    var port = Self.standardPort
    if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
      guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else { throw .badPort }
      port = number
      host = String(authority[..<colon])
    }
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard !host.isEmpty else { throw .notMQTT }
    let trimmed = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
    guard !trimmed.isEmpty, !trimmed.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
      throw .emptyPrefix
    }
    guard !trimmed.contains("+"), !trimmed.contains("#") else { throw .wildcard(trimmed) }
    self.init(host: host, port: port, prefix: trimmed, user: user, password: password)
  }

  /// The address without credentials: what messages, logs and pages show.
  public var description: String {
    "mqtt://\(host.contains(":") ? "[\(host)]" : host):\(port)/\(prefix)"
  }

  private static func percentDecoded(_ text: Substring) -> String {
    var bytes: [UInt8] = []
    var utf8 = text.utf8.makeIterator()
    while let byte = utf8.next() {
      if byte == UInt8(ascii: "%"), let high = utf8.next(), let low = utf8.next(),
        let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
      {
        bytes.append(value)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
