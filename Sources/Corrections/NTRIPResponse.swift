import Plumbing

/// What a caster answers to a request, read from its first bytes: a stream (NTRIP 1's
/// `ICY 200 OK`, or NTRIP 2's `HTTP/1.1 200 OK`, perhaps chunked), its sourcetable (NTRIP 1
/// answers an unknown mountpoint with it), or a refusal.
package enum NTRIPResponse: Equatable, Sendable {
  /// Corrections follow: `chunked` when NTRIP 2's transfer encoding wraps them.
  case stream(version: Int, chunked: Bool)
  /// The sourcetable follows instead: the mountpoint is not there (or was not asked for).
  case sourcetable(chunked: Bool)
  /// 401: the caster wants a user and password, or refused the ones given.
  case unauthorized
  /// Any other status, with its line.
  case refused(String)
  /// Not NTRIP or HTTP at all.
  case garbage

  /// The longest head read before a caster that never ends it is taken for garbage.
  static let headLimit = 8192

  /// The answer in `bytes`, and where what follows it starts; `nil` while the head is
  /// incomplete (and shorter than ``headLimit``).
  static func read(_ bytes: [UInt8]) -> (NTRIPResponse, bodyStart: Int)? {
    // NTRIP 1's "ICY 200 OK" and "SOURCETABLE 200 OK" end their line and start at once
    // (headers may follow for the sourcetable); HTTP heads end with an empty line.
    guard let lineEnd = bytes.firstIndex(of: 0x0A) else {
      return bytes.count > headLimit || (bytes.count >= 4 && !Self.mayStartAnswer(bytes)) ? (.garbage, bytes.count) : nil
    }
    let statusLine = String(decoding: bytes[..<lineEnd], as: UTF8.self).trimmingCharacters(in: "\r")
    if statusLine.hasPrefix("ICY 200") { return (.stream(version: 1, chunked: false), lineEnd + 1) }
    guard let headEnd = Self.headEnd(bytes) else { return bytes.count > headLimit ? (.garbage, bytes.count) : nil }
    // Split as bytes: "\r\n" is one Character to a String.
    let lines = bytes[..<headEnd.head].split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
      String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
    }
    let headers = lines.dropFirst().compactMap { line -> (String, String)? in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      return (line[..<colon].lowercased(), String(line[line.index(after: colon)...]).trimmingCharacters(in: " \t"))
    }
    let chunked = headers.contains { $0.0 == "transfer-encoding" && $0.1.lowercased().includes("chunked") }
    let contentType = headers.first { $0.0 == "content-type" }?.1.lowercased() ?? ""
    if statusLine.hasPrefix("SOURCETABLE 200") { return (.sourcetable(chunked: false), headEnd.body) }
    guard statusLine.hasPrefix("HTTP/1."), statusLine.count >= 12, let code = Int(statusLine.dropFirst(9).prefix(3)) else {
      return (.garbage, headEnd.body)
    }
    switch code {
    case 200 where contentType.hasPrefix("gnss/sourcetable"): return (.sourcetable(chunked: chunked), headEnd.body)
    case 200: return (.stream(version: 2, chunked: chunked), headEnd.body)
    case 401: return (.unauthorized, headEnd.body)
    default: return (.refused(statusLine), headEnd.body)
    }
  }

  /// The answer in `bytes` when the caster closed the connection after them: its head may end
  /// there without its empty line (RTKLIB's `HTTP/1.0 401 Unauthorized` does).
  static func readAtEnd(_ bytes: [UInt8]) -> NTRIPResponse? {
    guard !bytes.isEmpty else { return nil }
    return read(bytes + Array("\r\n\r\n".utf8))?.0
  }

  /// Whether `bytes` could begin an answer a caster gives.
  private static func mayStartAnswer(_ bytes: [UInt8]) -> Bool {
    let start = String(decoding: bytes.prefix(4), as: UTF8.self)
    return ["ICY ", "HTTP", "SOUR"].contains { $0.hasPrefix(start) || start.hasPrefix($0) }
  }

  /// Where the head ends (before its empty line) and the body starts.
  private static func headEnd(_ bytes: [UInt8]) -> (head: Int, body: Int)? {
    var index = 0
    while index < bytes.count {
      if bytes[index] == 0x0A {
        if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return (index, index + 2) }
        if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return (index, index + 3) }
      }
      index += 1
    }
    return nil
  }
}

extension String {
  fileprivate func trimmingCharacters(in set: String) -> String {
    let characters = Set(set)
    return String(drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
  }
}

/// HTTP/1.1's chunked transfer coding taken off a stream as it arrives: bounded (a chunk's
/// size line is at most a few bytes; a size beyond 1 MiB is refused as garbage).
package struct ChunkedDecoder: Sendable {
  private enum State: Sendable {
    case size([UInt8])
    case data(remaining: Int)
    case dataEnd(seen: Int)
    case ended
    case failed
  }

  private var state = State.size([])

  package init() {}

  /// Whether the coding went wrong (a bad size line): the stream cannot be trusted.
  package var failed: Bool { if case .failed = state { true } else { false } }
  /// Whether the last (zero-size) chunk came: the caster ended the stream.
  package var ended: Bool { if case .ended = state { true } else { false } }

  /// The data in `bytes`.
  package mutating func decode(_ bytes: some Collection<UInt8>) -> [UInt8] {
    var output: [UInt8] = []
    for byte in bytes {
      switch state {
      case .size(var line):
        if byte == 0x0A {
          let text = String(decoding: line, as: UTF8.self).split(separator: ";").first.map(String.init) ?? ""
          guard let size = Int(text.trimmingCharacters(in: " \r\t"), radix: 16), size >= 0, size <= 1 << 20 else {
            state = .failed
            return output
          }
          state = size == 0 ? .ended : .data(remaining: size)
        } else {
          line.append(byte)
          state = line.count > 64 ? .failed : .size(line)
        }
      case .data(let remaining):
        output.append(byte)
        state = remaining == 1 ? .dataEnd(seen: 0) : .data(remaining: remaining - 1)
      case .dataEnd(let seen):
        // CRLF after each chunk's data (a bare LF is taken too).
        if byte == 0x0A {
          state = .size([])
        } else if byte == 0x0D, seen == 0 {
          state = .dataEnd(seen: 1)
        } else {
          state = .failed
          return output
        }
      case .ended, .failed:
        return output
      }
    }
    return output
  }
}
