/// A request the status port answers: GET or HEAD of a path, nothing else.
package struct HTTPRequest: Sendable, Equatable {
  package enum Method: String, Sendable {
    case get = "GET"
    case head = "HEAD"
  }

  package var method: Method
  /// The path, percent-decoded, without its query.
  package var path: String
  /// Whether the client keeps the connection for another request (HTTP/1.1 unless it says
  /// `Connection: close`; HTTP/1.0 only when it says `keep-alive`).
  package var keepsAlive: Bool

  package init(method: Method, path: String, keepsAlive: Bool = true) {
    self.method = method
    self.path = path
    self.keepsAlive = keepsAlive
  }
}

/// Why a request was refused before it was answered: the status to answer, and a reason for
/// people. The connection is closed after it.
package struct HTTPRefusal: Error, Sendable, Equatable {
  package var status: HTTPStatus
  package var reason: String
}

/// Requests out of the bytes a client sends, one at a time as each head is complete, pipelined
/// or not. Bounded: a head (request line and headers) longer than ``headLimit`` is refused,
/// and so is anything but a GET or HEAD without a body, so nothing a client sends is kept
/// beyond one head.
package struct HTTPRequestReader: Sendable {
  /// The longest request line and headers taken, blank line included.
  package static let headLimit = 8192

  private var buffer: [UInt8] = []
  /// How far the buffer has been searched for the head's end, so a head dribbled a byte at
  /// a time is not searched from the start each time.
  private var searched = 0

  package init() {}

  /// Bytes received and not yet part of a request.
  package var bufferedByteCount: Int { buffer.count }

  package mutating func append(_ bytes: UnsafeRawBufferPointer) {
    buffer.append(contentsOf: bytes)
  }

  /// The next complete request, `nil` until one is complete; a refusal when what was sent is
  /// no request this port answers (the reader then takes nothing more: close the connection).
  package mutating func next() -> Result<HTTPRequest, HTTPRefusal>? {
    guard let (headEnd, bodyStart) = findHeadEnd() else {
      if buffer.count > Self.headLimit {
        return .failure(HTTPRefusal(status: .headersTooLarge, reason: "The request line and headers are over 8 KiB."))
      }
      return nil
    }
    guard bodyStart <= Self.headLimit else {
      return .failure(HTTPRefusal(status: .headersTooLarge, reason: "The request line and headers are over 8 KiB."))
    }
    let head = Array(buffer[0..<headEnd])
    buffer.removeFirst(bodyStart)
    searched = 0
    return Self.parse(head)
  }

  /// Where the head ends (its last line's end) and what follows the blank line starts; a
  /// line may end in CRLF or a bare LF.
  private mutating func findHeadEnd() -> (Int, Int)? {
    var index = max(searched, 0)
    while index < buffer.count {
      if buffer[index] == 0x0A {
        // A blank line: LF LF, or LF CR LF.
        if index + 1 < buffer.count, buffer[index + 1] == 0x0A { return (index, index + 2) }
        if index + 2 < buffer.count, buffer[index + 1] == 0x0D, buffer[index + 2] == 0x0A { return (index, index + 3) }
        if index + 2 >= buffer.count {
          searched = index
          return nil
        }
      }
      index += 1
    }
    searched = max(0, buffer.count - 1)
    return nil
  }

  /// The request a head makes, or why it is refused.
  static func parse(_ head: [UInt8]) -> Result<HTTPRequest, HTTPRefusal> {
    func refuse(_ status: HTTPStatus, _ reason: String) -> Result<HTTPRequest, HTTPRefusal> {
      .failure(HTTPRefusal(status: status, reason: reason))
    }
    var lines = head.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
      line.last == 0x0D ? line.dropLast() : line
    }
    // Blank lines before the request line are to be ignored (RFC 9112, 2.2).
    while let first = lines.first, first.isEmpty { lines.removeFirst() }
    guard let requestLine = lines.first else { return refuse(.badRequest, "The request line is missing.") }
    let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
    guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
      return refuse(.badRequest, "The request line is not METHOD PATH HTTP/1.1.")
    }
    let version = String(decoding: parts[2], as: UTF8.self)
    guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
      return version.hasPrefix("HTTP/")
        ? refuse(.versionNotSupported, "Only HTTP/1.1 and HTTP/1.0 are spoken here.")
        : refuse(.badRequest, "The request line is not METHOD PATH HTTP/1.1.")
    }
    let methodName = String(decoding: parts[0], as: UTF8.self)
    guard methodName.utf8.allSatisfy({ isTokenCharacter($0) }) else { return refuse(.badRequest, "The method is not a token.") }
    guard let method = HTTPRequest.Method(rawValue: methodName) else {
      return refuse(.methodNotAllowed, "Only GET and HEAD are answered: this port is read-only.")
    }
    var keepsAlive = version == "HTTP/1.1"
    var hasHost = false
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex else {
        return refuse(.badRequest, "A header line has no name.")
      }
      let name = line[line.startIndex..<colon]
      guard name.allSatisfy({ isTokenCharacter($0) }) else { return refuse(.badRequest, "A header name is not a token.") }
      let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces
      switch String(decoding: name, as: UTF8.self).lowercased() {
      case "host": hasHost = true
      case "connection":
        let options = value.lowercased().split(separator: ",").map { String($0).trimmingSpaces }
        if options.contains("close") { keepsAlive = false } else if options.contains("keep-alive") { keepsAlive = true }
      case "content-length" where value != "0", "transfer-encoding":
        return refuse(.badRequest, "A GET or HEAD here carries no body.")
      default: break
      }
    }
    if version == "HTTP/1.1", !hasHost { return refuse(.badRequest, "An HTTP/1.1 request needs a Host header.") }
    let target = parts[1]
    guard target.first == 0x2F else { return refuse(.badRequest, "The path must start with '/'.") }
    let pathBytes = target.prefix { $0 != 0x3F && $0 != 0x23 }
    guard let path = percentDecoded(pathBytes) else {
      return refuse(.badRequest, "The path's percent-encoding is not valid UTF-8 without control characters.")
    }
    return .success(HTTPRequest(method: method, path: path, keepsAlive: keepsAlive))
  }

  /// `bytes` with each `%XX` decoded; `nil` for a bad escape, invalid UTF-8 or a control
  /// character.
  static func percentDecoded(_ bytes: some Collection<UInt8>) -> String? {
    var decoded: [UInt8] = []
    decoded.reserveCapacity(bytes.count)
    var iterator = bytes.makeIterator()
    while let byte = iterator.next() {
      guard byte == 0x25 else {
        decoded.append(byte)
        continue
      }
      guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
      decoded.append(high << 4 | low)
    }
    guard !decoded.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
    return String(validating: decoded, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }

  /// RFC 9110's tchar.
  private static func isTokenCharacter(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
    default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
  }
}

extension String {
  fileprivate var trimmingSpaces: String {
    String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}
