import Foundation
import GPSDServer
import Plumbing
import StatusService
import TestHelpers
import Transports

/// A box in this process: a gpsd server and its status page, on ports of their own, serving a
/// fixture played in a loop at `speed` times real time.
final class Box: @unchecked Sendable {
  let gpsd: GPSDServer
  let status: StatusServer
  let gpsdPort: Int
  let port: Int
  let device: String
  private let feeding: Task<Void, Never>
  private let publishing: Task<Void, Never>

  init(
    _ fixture: String = "sirf-nmea22-1hz.nmea", speed: Double = 4, interval: Duration = .milliseconds(250),
    limits: (inout HTTPServer.Configuration) -> Void = { _ in }
  ) throws {
    var configuration = GPSDServer.Configuration()
    configuration.port = 0
    let gpsd = GPSDServer(configuration: configuration)
    try gpsd.start()
    var page = StatusServer.Configuration()
    page.port = 0
    page.interval = interval
    let status = StatusServer(page, gpsd: gpsd, limits: limits)
    try status.start()
    self.gpsd = gpsd
    self.status = status
    gpsdPort = gpsd.port ?? 0
    port = status.port ?? 0
    let path = fixturesDirectory.appendingPathComponent(fixture).path
    device = path
    let receiver = ReceiverSource.replay(.file(path), speed: .multiplied(by: speed), loops: true).receiver
    // Off the shared pool: the tests block its threads while they wait for client programs.
    feeding = Task(executorPreference: DedicatedExecutor.own()) {
      await status.following(receiver, device: path) { await gpsd.serve(receiver, device: path) }
    }
    publishing = Task(executorPreference: DedicatedExecutor.own()) { await status.run() }
  }

  deinit {
    feeding.cancel()
    publishing.cancel()
    status.stop()
    gpsd.stop()
  }

  /// The status now, as `/status.json` gives it to a fresh client.
  func json() async throws -> [String: Any] {
    let response = try await HTTPExchange.get("/status.json", port: port)
    return (try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]) ?? [:]
  }

  /// The epochs the status says the receiver has made.
  func epochs() async throws -> Int {
    ((try await json()["receivers"] as? [[String: Any]])?.first?["epochs"] as? Int) ?? -1
  }
}

/// A hand-made HTTP client over a plain socket, for what real clients never send.
struct HTTPExchange {
  var head: String
  var body: String
  var status: Int? { head.split(separator: " ").dropFirst().first.flatMap { Int($0) } }

  /// Sends `request` whole and reads until the server closes (or `seconds` pass).
  static func send(_ request: String, port: Int, seconds: Double = 10) async throws -> HTTPExchange {
    try await offThePool {
      let socket = try FileDescriptor.connectTCP(host: "127.0.0.1", port: port)
      defer { try? socket.close() }
      try sendAll(Array(request.utf8), on: socket)
      let text = readUntilClosed(socket, seconds: seconds)
      guard let split = text.range(of: "\r\n\r\n") else { return HTTPExchange(head: text, body: "") }
      return HTTPExchange(head: String(text[..<split.lowerBound]), body: String(text[split.upperBound...]))
    }
  }

  static func get(_ path: String, port: Int) async throws -> HTTPExchange {
    try await send("GET \(path) HTTP/1.1\r\nHost: box\r\nConnection: close\r\n\r\n", port: port)
  }

  static func sendAll(_ bytes: [UInt8], on socket: FileDescriptor) throws {
    var sent = 0
    while sent < bytes.count {
      let count = try bytes.withUnsafeBytes { raw in
        try Result { () throws(Errno) in try socket.sendSome(UnsafeRawBufferPointer(rebasing: raw[sent...])) }.get()
      }
      if count == 0 { _ = poll(nil, 0, 10) }
      sent += count
    }
  }

  /// What the socket gives until the server closes it, or `seconds` pass.
  static func readUntilClosed(_ socket: FileDescriptor, seconds: Double) -> String {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      var descriptor = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 50) > 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { raw in (try? socket.read(into: raw)) ?? -1 }
      if count <= 0 { break }
      received += buffer[0..<count]
    }
    return String(decoding: received, as: UTF8.self)
  }
}
