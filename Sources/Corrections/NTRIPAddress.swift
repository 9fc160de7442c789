import Plumbing

/// Where corrections come from: `ntrip://[USER:PASSWORD@]HOST[:2101]/MOUNTPOINT`. Its
/// description never shows the password (nor the user): it is what logs, the status page and
/// `?DEVICES` say.
public struct NTRIPAddress: Hashable, Sendable, CustomStringConvertible {
  public var host: String
  public var port: Int
  /// The mountpoint, without its slash; empty for the caster's sourcetable.
  public var mountpoint: String
  public var user: String?
  public var password: String?

  /// NTRIP's registered port.
  public static let standardPort = 2101

  public init(host: String, port: Int = NTRIPAddress.standardPort, mountpoint: String, user: String? = nil, password: String? = nil) {
    self.host = host
    self.port = port
    self.mountpoint = mountpoint
    self.user = user
    self.password = password
  }

  /// Reads `ntrip://[USER[:PASSWORD]@]HOST[:PORT]/MOUNTPOINT` (the scheme may be left out);
  /// `nil` when it is not such an address. IPv6 hosts go in brackets.
  public init?(parsing text: String) {
    var rest = Substring(text)
    if rest.hasPrefix("ntrip://") { rest = rest.dropFirst("ntrip://".count) } else if rest.includes("://") { return nil }
    guard let slash = rest.firstIndex(of: "/") else { return nil }
    let authority = rest[..<slash]
    let mountpoint = String(rest[rest.index(after: slash)...])
    guard !mountpoint.isEmpty, !mountpoint.contains("/"), mountpoint.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "?" })
    else { return nil }
    var hostPort = authority
    if let at = authority.lastIndex(of: "@") {
      let credentials = authority[..<at]
      hostPort = authority[authority.index(after: at)...]
      if let colon = credentials.firstIndex(of: ":") {
        user = String(credentials[..<colon])
        password = String(credentials[credentials.index(after: colon)...])
      } else {
        user = String(credentials)
      }
    }
    var host = hostPort
    var port = Self.standardPort
    if hostPort.hasPrefix("[") {
      guard let close = hostPort.firstIndex(of: "]") else { return nil }
      host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
      let after = hostPort[hostPort.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else { return nil }
        port = number
      }
    } else if let colon = hostPort.lastIndex(of: ":") {
      host = hostPort[..<colon]
      guard let number = Int(hostPort[hostPort.index(after: colon)...]) else { return nil }
      port = number
    }
    guard !host.isEmpty, (1...65535).contains(port) else { return nil }
    self.host = String(host)
    self.port = port
    self.mountpoint = mountpoint
  }

  /// `ntrip://HOST:PORT/MOUNTPOINT`: never the credentials.
  public var description: String {
    let host = self.host.contains(":") ? "[\(self.host)]" : self.host
    return "ntrip://\(host):\(port)/\(mountpoint)"
  }

  /// The `Authorization` header's value, when a user is given (HTTP Basic).
  var authorization: String? {
    guard let user else { return nil }
    return "Basic " + Base64.encode(Array("\(user):\(password ?? "")".utf8))
  }
}

/// Base64, for HTTP Basic authorization (no Foundation in this module).
enum Base64 {
  static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  static func encode(_ bytes: [UInt8]) -> String {
    var output: [UInt8] = []
    var index = 0
    while index < bytes.count {
      let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
      let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
      for position in 0..<4 {
        output.append(position <= chunk.count ? alphabet[value >> (18 - 6 * position) & 0x3F] : UInt8(ascii: "="))
      }
      index += 3
    }
    return String(decoding: output, as: UTF8.self)
  }
}
