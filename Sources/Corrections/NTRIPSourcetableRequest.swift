import Plumbing

/// A caster's sourcetable, asked for: `GET /` (NTRIP 2, and NTRIP 1 casters answer it too).
public enum NTRIPSourcetableRequest {
  /// Why the table could not be read.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// The sourcetable of the caster at `host:port`. Blocking, for up to `timeout` seconds:
  /// call it off the cooperative pool.
  public static func fetch(host: String, port: Int = NTRIPAddress.standardPort, timeout: Int = 10) throws(Failure) -> Sourcetable {
    let socket: FileDescriptor
    do {
      socket = try FileDescriptor.connectTCP(host: host, port: port)
    } catch {
      switch error {
      case .unknownHost, .lookupUnanswered: throw Failure(description: "the host name \(host) does not resolve.")
      case .system(let errno): throw Failure(description: "cannot connect to \(host):\(port): \(errno).")
      }
    }
    defer { try? socket.close() }
    let request =
      "GET / HTTP/1.1\r\nHost: \(host)\r\nNtrip-Version: Ntrip/2.0\r\nUser-Agent: NTRIP gpsbridge/\(Release.version)\r\nConnection: close\r\n\r\n"
    _ = Array(request.utf8).withUnsafeBytes { raw in try? socket.sendSome(raw) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16_384)
    var answer: (NTRIPResponse, bodyStart: Int)?
    // The head, then, for a table only, the table to its end (or the caster's close), all
    // within `timeout`: a caster that dribbles a byte now and then holds nobody up.
    let deadline = ContinuousClock.now.advanced(by: .seconds(timeout))
    while received.count < 4 << 20 {
      let left = ContinuousClock.now.duration(to: deadline)
      guard left > .zero else { break }
      if answer == nil { answer = NTRIPResponse.read(received) }
      if let (response, _) = answer {
        guard case .sourcetable = response else { break }
        if String(decoding: received.suffix(64), as: UTF8.self).contains("ENDSOURCETABLE") { break }
      }
      var descriptor = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
      let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
      guard poll(&descriptor, 1, Int32(clamping: max(1, milliseconds))) > 0 else { break }
      let count = (try? socket.read(into: &buffer)) ?? -1
      if count <= 0 {
        if answer == nil, let last = NTRIPResponse.readAtEnd(received) { answer = (last, received.count) }
        break
      }
      received += buffer[0..<count]
    }
    guard let (response, bodyStart) = answer ?? NTRIPResponse.read(received) else {
      throw Failure(description: "the caster at \(host):\(port) did not answer.")
    }
    switch response {
    case .stream:
      // A caster that streams at once has no table to give (an NTRIP 1 caster with one mountpoint).
      return Sourcetable(mountpoints: [])
    case .sourcetable(let chunked):
      var body = Array(received[min(bodyStart, received.count)...])
      if chunked {
        var decoder = ChunkedDecoder()
        body = decoder.decode(body)
      }
      return Sourcetable(text: String(decoding: body, as: UTF8.self))
    case .unauthorized: throw Failure(description: "the caster at \(host):\(port) wants a user and password for its table (401).")
    case .refused(let line): throw Failure(description: "the caster at \(host):\(port) answered '\(line.prefix(80))'.")
    case .garbage: throw Failure(description: "\(host):\(port) does not answer as an NTRIP caster.")
    }
  }
}
