import Automation

/// `run --mqtt`: the publisher running while the run lasts, and a cause that cannot go away
/// (the broker refuses the password) kept for the run to end on.
final class RunMQTT: Sendable {
  let publisher: MQTTPublisher
  private let running: Task<Void, Never>
  private let failure: Shared<String?>

  init(_ publisher: MQTTPublisher) {
    let failure = Shared<String?>(nil)
    self.publisher = publisher
    self.failure = failure
    running = Task {
      do {
        try await publisher.run()
      } catch {
        failure.withLock { $0 = "MQTT: \(error)" }
      }
    }
  }

  var failed: String? { failure.withLock { $0 } }

  /// Stops: what is queued goes (a second at most), then `offline` and a clean DISCONNECT.
  func stop() async {
    running.cancel()
    await running.value
    let done = publisher.client.statistics
    Terminal.diagnostic(
      "gpsbridge: MQTT: \(done.published) messages published (\(done.acknowledged) acknowledged at QoS 1) in \(done.connections) connection\(done.connections == 1 ? "" : "s"); at most \(done.mostQueued) waited, \(done.dropped) dropped\(done.queued > 0 ? ", \(done.queued) left unsent" : "")."
    )
  }
}
