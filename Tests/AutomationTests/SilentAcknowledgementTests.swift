import Automation
import Foundation
import Plumbing
import TestHelpers
import Testing

/// A broker that keeps the connection (it answers pings) but never acknowledges a QoS 1
/// message stopped all publishing after 16 messages, silently, until shutdown. Past the
/// acknowledgement time-out the client takes it for dead, says so, connects again and sends
/// the messages again.
@Suite(.timeLimit(.minutes(3)))
struct SilentAcknowledgementTests {
  /// A broker in Python: CONNACK to CONNECT, PINGRESP to PINGREQ, nothing to PUBLISH; it
  /// prints a line for each connection.
  static let broker = """
    import socket, sys, threading
    server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0)); server.listen(8)
    print(server.getsockname()[1], flush=True)
    def serve(connection):
        data = b""
        while True:
            chunk = connection.recv(4096)
            if not chunk:
                return
            data += chunk
            while len(data) >= 2:
                length, shift, index = 0, 0, 1
                while index < len(data) and data[index] & 0x80:
                    length |= (data[index] & 0x7F) << shift; shift += 7; index += 1
                if index >= len(data):
                    break
                length |= (data[index] & 0x7F) << shift
                if len(data) < index + 1 + length:
                    break
                kind = data[0] >> 4
                data = data[index + 1 + length:]
                if kind == 1:
                    connection.sendall(bytes([0x20, 2, 0, 0]))
                elif kind == 12:
                    connection.sendall(bytes([0xD0, 0]))
    while True:
        connection, _ = server.accept()
        print("connection", flush=True)
        threading.Thread(target=serve, args=(connection,), daemon=True).start()
    """

  @Test func aBrokerThatNeverAcknowledgesIsLeftAndConnectedAgain() async throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", Self.broker]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    defer {
      kill(process.processIdentifier, SIGKILL)
      process.waitForExit()
    }
    let port = try await offThePool { () -> Int in
      var line = [UInt8]()
      while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A { line.append(byte) }
      return Int(String(decoding: line, as: UTF8.self)) ?? 0
    }
    var configuration = MQTTClient.Configuration(address: try MQTTAddress(parsing: "mqtt://127.0.0.1:\(port)/p"), clientID: "c")
    configuration.acknowledgementTimeout = .seconds(1)
    configuration.longestBackoff = .seconds(1)
    let said = Locked<[String]>([])
    let client = MQTTClient(configuration, said: { message in said.withLock { $0.append(message) } })
    for index in 0..<20 { client.publish(MQTTClient.Message(topic: "p/event", payload: "\(index)", qos: 1)) }
    let running = Task.detached { try? await client.run() }
    defer { running.cancel() }
    #expect(
      await eventually(timeout: .seconds(20)) { client.statistics.connections >= 2 },
      "\(client.statistics) \(said.withLock { $0 })")
    #expect(
      said.withLock { $0 }.contains { $0.contains("the broker did not acknowledge a message in 1 s; connecting again") },
      "\(said.withLock { $0 })")
    // Nothing was acknowledged, so nothing is lost: all twenty still wait to go.
    #expect(client.statistics.acknowledged == 0 && client.statistics.queued >= 1)
  }
}
