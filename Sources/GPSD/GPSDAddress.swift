/// Where a gpsd listens: a host (a name, an IPv4 or an IPv6 address) and a TCP port.
public struct GPSDAddress: Hashable, Sendable, CustomStringConvertible {
  public var host: String
  public var port: Int

  public init(host: String, port: Int = GPSDAddress.standard.port) {
    self.host = host
    self.port = port
  }

  /// gpsd's own default: the loopback address and its registered port, 2947.
  public static let standard = GPSDAddress(host: "127.0.0.1", port: 2947)

  /// Reads `HOST`, `HOST:PORT`, `:PORT` or `[IPv6]:PORT`; a missing part is the standard one.
  /// `nil` when the text has no such form or the port is not 1–65535.
  public init?(parsing text: String) {
    var host = Self.standard.host
    var portText: Substring?
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else { return nil }
      host = String(text[text.index(after: text.startIndex)..<close])
      let rest = text[text.index(after: close)...]
      guard rest.isEmpty || rest.hasPrefix(":") else { return nil }
      portText = rest.isEmpty ? nil : rest.dropFirst()
    } else {
      let parts = text.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count <= 2 else { return nil }
      if !parts[0].isEmpty { host = String(parts[0]) }
      portText = parts.count == 2 ? parts[1] : nil
    }
    var port = Self.standard.port
    if let portText {
      guard let value = Int(portText), (1...65535).contains(value) else { return nil }
      port = value
    }
    guard !host.isEmpty else { return nil }
    self.init(host: host, port: port)
  }

  /// `host:port`, with an IPv6 host in brackets.
  public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
