import Plumbing

/// A caster's sourcetable, asked for: `GET /` (NTRIP 2, and NTRIP 1 casters answer it too).
public enum NTRIPSourcetableRequest {
  /// Why the table could not be read.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// The sourcetable of the caster at `host:port`, within `timeout` seconds. No thread waits
  /// for the caster: its connection is a ``ClientConnection``.
  public static func fetch(host: String, port: Int = NTRIPAddress.standardPort, timeout: Int = 10) async throws(Failure) -> Sourcetable {
    let connection: ClientConnection
    do {
      connection = try await ClientConnection.connect(host: host, port: port, label: "gpsbridge.ntrip.table")
    } catch {
      switch error {
      case .unknownHost, .lookupUnanswered: throw Failure(description: "the host name \(host) does not resolve.")
      case .system(let errno): throw Failure(description: "cannot connect to \(host):\(port): \(errno).")
      }
    }
    let request =
      "GET / HTTP/1.1\r\nHost: \(host)\r\nNtrip-Version: Ntrip/2.0\r\nUser-Agent: NTRIP gpsbridge/\(Release.version)\r\nConnection: close\r\n\r\n"
    var received: [UInt8] = []
    var answer: (NTRIPResponse, bodyStart: Int)?
    // The head, then, for a table only, the table to its end (or the caster's close), all
    // within `timeout`: a caster that dribbles a byte now and then holds nobody up.
    let deadline = ContinuousClock.now.advanced(by: .seconds(timeout))
    if await connection.send(Array(request.utf8), within: .seconds(timeout)) {
      reading: while received.count < 4 << 20 {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { break }
        if answer == nil { answer = NTRIPResponse.read(received) }
        if let (response, _) = answer {
          guard case .sourcetable = response else { break }
          if String(decoding: received.suffix(64), as: UTF8.self).includes("ENDSOURCETABLE") { break }
        }
        switch await connection.receive(within: left) {
        case .bytes(let bytes): received += bytes
        case .quiet, .woken: break reading
        case .closed:
          if answer == nil, let last = NTRIPResponse.readAtEnd(received) { answer = (last, received.count) }
          break reading
        }
      }
    }
    await connection.close()
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
