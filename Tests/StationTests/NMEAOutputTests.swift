import Foundation
import GPSD
import NMEASimulation
import Plumbing
import Station
import TestHelpers
import Testing
import Transports

/// NMEA out over the network: every TCP client gets every sentence in order, a client that
/// never reads is closed without holding up the others, and datagrams carry whole sentences.
@Suite(.timeLimit(.minutes(2))) struct NMEAOutputTests {
  /// An epoch's worth of sentences, numbered so that order and loss show.
  static func epoch(_ number: Int) -> [UInt8] {
    Array(
      (0..<8).map {
        "$GNTXT,01,01,02,epoch \(number) sentence \($0) of a kilobyte or so, padded: \(String(repeating: "x", count: 60))*00\r\n"
      }.joined().utf8)
  }

  @Test func sixtyFourClientsGetEverySentenceAndOneThatNeverReadsIsClosed() async throws {
    let output = try NMEAOutput(.init(tcp: GPSDAddress(host: "127.0.0.1", port: 0)))
    defer { output.stop() }
    let port = try #require(output.tcpPort)
    let readers = try (0..<63).map { _ in try FileDescriptor.connectTCP(host: "127.0.0.1", port: port) }
    // One that never reads, with as small a receive buffer as the kernel allows.
    let stuck = try FileDescriptor.connectTCP(host: "127.0.0.1", port: port)
    var small: CInt = 1024
    setsockopt(stuck.rawValue, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<CInt>.size))
    #expect(await eventually(timeout: .seconds(30)) { output.statistics.clients == 64 })

    // Each reader on a thread of its own; the publisher keeps at most 100 epochs ahead of the
    // slowest reader (so a busy machine slows the test, never fails it), and goes on 600
    // epochs (660 kB): far beyond what the stuck client's queue and socket hold.
    let epochs = 600
    let expected = (0..<epochs).flatMap(Self.epoch)
    let received = Locked([[UInt8]](repeating: [], count: readers.count))
    let progress = Changes()
    for (index, reader) in readers.enumerated() {
      Thread.detachNewThread {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while received.withLock({ $0[index].count }) < expected.count {
          var descriptor = pollfd(fd: reader.rawValue, events: Int16(POLLIN), revents: 0)
          guard poll(&descriptor, 1, 60_000) > 0 else { break }
          let got = buffer.withUnsafeMutableBytes { recv(reader.rawValue, $0.baseAddress, $0.count, 0) }
          guard got > 0 else { break }
          received.withLock { $0[index] += buffer[0..<got] }
          progress.changed()
        }
      }
    }
    let perEpoch = Self.epoch(0).count
    // The slowest reader's progress, woken by each read rather than looked at on a timer.
    func slowest() -> Int { received.withLock { $0.map(\.count).min() ?? 0 } }
    for number in 0..<epochs {
      guard await progress.until(timeout: .seconds(60), { slowest() >= (number - 100) * perEpoch }) else { break }
      output.publish(Self.epoch(number))
    }
    #expect(await progress.until(timeout: .seconds(60)) { slowest() >= expected.count })
    #expect(received.withLock { $0.filter { $0 == expected }.count } == 63, "readers that got every sentence in order")
    #expect(output.statistics.dropped == 1, "\(output.statistics)")
    for reader in readers { try? reader.close() }
    try? stuck.close()
  }

  @Test func datagramsCarryWholeSentences() async throws {
    let receiver = socket(AF_INET, datagramSocket, 0)
    defer { close(receiver) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(receiver, $0, &length) }
    }
    let port = Int(UInt16(bigEndian: address.sin_port))
    let output = try NMEAOutput(.init(udp: GPSDAddress(host: "127.0.0.1", port: port)))
    defer { output.stop() }
    // An epoch of ~1.1 KB goes as one datagram; one of ~4.5 KB is cut between sentences.
    output.publish(Self.epoch(1))
    output.publish((2...5).flatMap(Self.epoch))
    var datagrams: [[UInt8]] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    let total = Self.epoch(1).count + (2...5).flatMap(Self.epoch).count
    while datagrams.reduce(0, { $0 + $1.count }) < total {
      var descriptor = pollfd(fd: receiver, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 30_000) > 0 else { break }
      let got = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, 0) }
      datagrams.append(Array(buffer[0..<max(0, got)]))
    }
    #expect(datagrams.first == Self.epoch(1))
    #expect(datagrams.dropFirst().allSatisfy { $0.count <= 1400 && $0.first == UInt8(ascii: "$") && $0.last == 0x0A })
    #expect(datagrams.dropFirst().flatMap { $0 } == (2...5).flatMap(Self.epoch))
  }

  /// A u-blox that speaks UBX only has no sentences to pass on: its epochs are written from
  /// its fixes, one GGA (and the rest) an epoch, at its positions.
  @Test func aUBXOnlyReceiversEpochsAreWrittenFromItsFixes() async throws {
    let simulation = Simulation(route: Route.demoDrive.lasting(12), profile: .ublox)
    let epochs = Array(simulation.epochs())
    // Played again and again, ten times real time: a client that joins late still gets epochs.
    let receiver = Receiver(
      ReplaySource(
        capture: .bytes(epochs.flatMap { simulation.ubx($0) }), speed: .multiplied(by: 10), loops: true, clock: ContinuousClock()))
    let output = try NMEAOutput(.init(tcp: GPSDAddress(host: "127.0.0.1", port: 0)))
    defer { output.stop() }
    let client = try FileDescriptor.connectTCP(host: "127.0.0.1", port: try #require(output.tcpPort))
    defer { try? client.close() }
    #expect(await eventually(timeout: .seconds(30)) { output.statistics.clients == 1 })
    let sending = Task { await output.follow(receiver, writingFromFixes: false) }
    let running = Task { await receiver.run() }
    defer {
      sending.cancel()
      running.cancel()
    }
    let lines = try await offThePool { () -> [String] in
      var received: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while String(decoding: received, as: UTF8.self).components(separatedBy: "$GNGGA").count - 1 < epochs.count - 1 {
        var descriptor = pollfd(fd: client.rawValue, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 60_000) > 0 else { break }
        let got = buffer.withUnsafeMutableBytes { recv(client.rawValue, $0.baseAddress, $0.count, 0) }
        guard got > 0 else { break }
        received += buffer[0..<got]
      }
      return String(decoding: received, as: UTF8.self).split(separator: "\r\n").map(String.init)
    }
    // Whole sentences only (the last read may be cut off).
    let ggas = lines.filter { $0.hasPrefix("$GNGGA,") && $0.dropLast(2).hasSuffix("*") }
    #expect(ggas.count >= epochs.count - 1, "\(lines.prefix(12))")
    #expect(lines.contains { $0.hasPrefix("$GNRMC,") } && lines.contains { $0.hasPrefix("$GNZDA,") })
    // Each GGA at its own epoch's position, matched by time (to 1e-4 of a minute, 0.2 m).
    let truth = Dictionary(epochs.map { (String($0.truth.time.time.description.prefix(8)), $0.truth) }) { first, _ in first }
    var compared = 0
    for gga in ggas {
      let fields = gga.split(separator: ",", omittingEmptySubsequences: false)
      guard fields.count > 5, fields[2].count > 4, fields[4].count > 5 else { continue }
      let time = fields[1]
      let clock = "\(time.prefix(2)):\(time.dropFirst(2).prefix(2)):\(time.dropFirst(4).prefix(2))"
      let epoch = try #require(truth[clock], "no epoch at \(clock): \(gga)")
      let latitude = try #require(Double(fields[2].prefix(2))) * 60 + (try #require(Double(fields[2].dropFirst(2))))
      let longitude = try #require(Double(fields[4].prefix(3))) * 60 + (try #require(Double(fields[4].dropFirst(3))))
      #expect(abs(latitude - epoch.latitude * 60) < 1e-4 && abs(longitude - epoch.longitude * 60) < 1e-4, "\(gga) against \(epoch)")
      compared += 1
    }
    #expect(compared >= epochs.count - 1)
  }
}
