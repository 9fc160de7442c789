import Plumbing

/// Where webhooks go: an `http` or `https` URL with a host. It is kept as given (libcurl reads
/// it) and taken apart only as far as messages need: the scheme, the host and the port, never
/// the path, which often holds the hook's secret (Home Assistant's does).
///
/// The program reads URLs with this rather than Foundation's `URL`, whose parser alone made
/// the installed program 7 MB larger.
public struct WebhookURL: Hashable, Sendable, CustomStringConvertible {
  /// The URL as given.
  public let absoluteString: String
  /// `http` or `https`, in lower case.
  public let scheme: String
  /// The host: a name, an IPv4 address, or an IPv6 address in brackets.
  public let host: String
  /// The port, when the URL names one.
  public let port: Int?

  /// Reads `string`: `nil` unless it is an `http` or `https` URL with a host (and, if it has
  /// one, a port from 1 to 65535), without spaces or control characters.
  public init?(string: String) {
    let bytes = Array(string.utf8)
    guard !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }), let separator = string.range(ofText: "://") else { return nil }
    let scheme = string[..<separator.lowerBound].lowercased()
    guard scheme == "http" || scheme == "https" else { return nil }
    let rest = string[separator.upperBound...]
    var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
    var host = authority
    var port: Int?
    let portStart: Substring.Index?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      host = authority[...close]
      let after = authority[authority.index(after: close)...]
      guard after.isEmpty || after.hasPrefix(":") else { return nil }
      portStart = after.isEmpty ? nil : after.startIndex
    } else {
      portStart = authority.lastIndex(of: ":")
      if let portStart { host = authority[..<portStart] }
    }
    if let portStart {
      let digits = authority[authority.index(after: portStart)...]
      guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ ("0"..."9").contains($0) }), let number = Int(digits),
        (1...65_535).contains(number)
      else { return nil }
      port = number
    }
    // A colon outside brackets is a port's: an IPv6 address without them is no host.
    guard !host.isEmpty, host != "[]", host.hasPrefix("[") || !host.contains(":") else { return nil }
    absoluteString = string
    self.scheme = scheme
    self.host = String(host)
    self.port = port
  }

  public var description: String { absoluteString }

  /// The URL as messages say it: its scheme, host and port, the rest left out.
  public var redacted: String { "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")/…" }
}
