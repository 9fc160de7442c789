import Foundation
import Plumbing
import TestHelpers
import Testing
import Transports

/// A replay stopped before its end says nothing of what the capture holds: a `serve --replay`
/// stopped by SIGTERM while a read was under way once said "Found no NMEA … in the 0 bytes" of
/// a good capture.
@Suite struct ReplayCancellationTests {
  @Test func aReplayStoppedWhileItWaitsToReadDoesNotSayTheCaptureIsEmpty() async throws {
    // A pipe whose writer says nothing yet: the replay's first read waits, and is stopped there.
    let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("gpsbridge-replay-\(UUID().uuidString)").path
    #expect(mkfifo(fifo, 0o600) == 0)
    defer { unlink(fifo) }
    let writer = open(fifo, O_RDWR | O_NONBLOCK)
    defer { close(writer) }
    let receiver = Receiver(ReplaySource(capture: .file(fifo), speed: .realTime, clock: ContinuousClock()))
    let said = Locked<[String]>([])
    receiver.listen(wanting: []) { event in
      if case .status(.stopped(let error)) = event { said.withLock { $0.append("\(error)") } }
    }
    // On an executor of its own (the session's task inherits it): in a clean clone's full run
    // under load, the shared pool once never got to open the pipe within 30 s.
    let running = Task(executorPreference: DedicatedExecutor.own()) { await receiver.run() }
    // Stopped once the replay holds the pipe open (its read then waits for the writer).
    #expect(await eventually { Self.openDescriptors(naming: fifo) == 2 })
    running.cancel()
    await running.value
    #expect(said.withLock { $0 }.isEmpty, "\(said.withLock { $0 })")
  }

  /// How many of this process's descriptors are open on `path` (the test's writer, and the
  /// replay's reader once it has opened the pipe).
  static func openDescriptors(naming path: String) -> Int {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }.count
  }
}
