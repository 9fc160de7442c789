import Automation
import FoundationEssentials
import GPSLocation

/// Where actions go beyond the terminal (`--mqtt`, `--webhook`), each running in a task of its
/// own while `run` or `serve` lasts; a cause that cannot go away (the broker refuses the
/// password) kept for the caller to end on or say.
final class ActionOutlets: Sendable {
  let publisher: MQTTPublisher?
  let webhooks: [WebhookSender]
  private let running: [Task<Void, Never>]
  private let failure: Shared<String?>
  private let say: @Sendable (String) -> Void

  /// - Throws: ``WebhookSender/Unavailable`` when webhooks are asked for and the system's
  ///   libcurl is missing (its message says what to install).
  init(
    mqtt: MQTTPublisher.Configuration?, webhooks options: WebhookOptions, sendsLocations: Bool,
    say: @escaping @Sendable (String) -> Void
  ) throws(WebhookSender.Unavailable) {
    let failure = Shared<String?>(nil)
    var webhooks: [WebhookSender] = []
    for url in options.urls {
      var configuration = WebhookSender.Configuration(url: url)
      configuration.sendsLocations = sendsLocations
      configuration.certificateAuthorities = options.certificateAuthorities
      webhooks.append(try WebhookSender(configuration, said: say))
    }
    let publisher = mqtt.map { MQTTPublisher($0, said: say) }
    self.publisher = publisher
    self.webhooks = webhooks
    self.failure = failure
    self.say = say
    var running: [Task<Void, Never>] = []
    if let publisher {
      say("gpsbridge: publishing to \(publisher.configuration.address).")
      running.append(
        Task {
          do {
            try await publisher.run()
          } catch {
            failure.withLock { $0 = "MQTT: \(error)" }
            say("Error: MQTT: \(error)")
          }
        })
    }
    for webhook in webhooks {
      say("gpsbridge: events go to the webhook at \(webhook.shownURL).")
      running.append(Task { await webhook.run() })
    }
    self.running = running
  }

  var isEmpty: Bool { publisher == nil && webhooks.isEmpty }

  /// Passes `batch`, of the receiver named `device`, to every outlet. Returns at once.
  func take(_ batch: [LocationManager.Action], device: String) {
    publisher?.take(batch, device: device)
    for webhook in webhooks { webhook.take(batch, device: device) }
  }

  /// Passes the actions of a monitor's `event` (with its time and id) to every outlet, and
  /// calls `whenHandled` once each has it (at once with none).
  func take(
    _ actions: [LocationManager.Action], device: String, of event: MonitorEvent, whenHandled: @escaping @Sendable () -> Void
  ) {
    let left = Shared((publisher == nil ? 0 : 1) + webhooks.count)
    let handledByOne: @Sendable () -> Void = {
      if left.withLock({ left in
        left -= 1
        return left == 0
      }) {
        whenHandled()
      }
    }
    if isEmpty { whenHandled() }
    publisher?.take(actions, device: device, of: event, whenHandled: handledByOne)
    for webhook in webhooks { webhook.take(actions, device: device, of: event, whenHandled: handledByOne) }
  }

  var failed: String? { failure.withLock { $0 } }

  /// Events that never reached their outlet: given up, or still waiting when the outlets
  /// stopped (a run ends with status 1 for them). Locations a full MQTT queue let go to make
  /// room for events are not counted: the queue drops them by design, first.
  var undelivered: Int {
    let mqtt = publisher?.client.statistics.queued ?? 0
    return mqtt + webhooks.map(\.statistics).reduce(0) { $0 + $1.failed + $1.dropped + $1.queued }
  }

  /// Stops: the broker gets what is queued, `offline` and a clean DISCONNECT; then says what
  /// each outlet did.
  func stop() async {
    for task in running { task.cancel() }
    for task in running { await task.value }
    if let done = publisher?.client.statistics {
      say(
        "gpsbridge: MQTT: \(done.published) messages published (\(done.acknowledged) acknowledged at QoS 1) in \(done.connections) connection\(done.connections == 1 ? "" : "s"); at most \(done.mostQueued) waited, \(done.dropped) dropped\(done.queued > 0 ? ", \(done.queued) left unsent" : "")."
      )
    }
    for webhook in webhooks {
      let done = webhook.statistics
      say(
        "gpsbridge: webhook \(webhook.shownURL): \(done.delivered) events delivered, \(done.retries) retries, \(done.failed) given up, \(done.dropped) dropped\(done.queued > 0 ? ", \(done.queued) left unsent" : "")."
      )
    }
  }
}
