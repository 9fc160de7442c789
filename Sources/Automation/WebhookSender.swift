import FoundationEssentials
import GPSLocation
import Plumbing

/// Region, visit, signal integrity and significant-change events POSTed to a URL as JSON (`--webhook`), through
/// the system's libcurl, loaded at the first POST (so `https` works, and only a process that
/// POSTs webhooks pays for TLS; a sender is made only where libcurl is found). Events go one at a time, in order; an answer
/// other than 2xx, or none, is tried again with backoff, a bounded number of times, always with
/// the same `Idempotency-Key` (also the body's `id`), so a retry cannot trigger an automation
/// twice. The queue is bounded: when full, the oldest event is dropped, counted and said.
public final class WebhookSender: Sendable {
  public struct Configuration: Sendable {
    public var url: WebhookURL
    /// Tries per event, the first included.
    public var attempts = 5
    /// The wait before the first retry; it doubles after each.
    public var firstRetry: Duration = .seconds(1)
    /// How long one request may take, all of it: connecting, the answer's headers and body.
    public var timeout: Duration = .seconds(10)
    /// A file of CA certificates (PEM) to trust instead of the system's: a receiver whose
    /// certificate a private CA signed.
    public var certificateAuthorities: String?
    /// The most events waiting.
    public var queueLimit = 1000
    /// Whether locations go too (significant changes, when those are what the manager reports).
    public var sendsLocations = false

    public init(url: WebhookURL) { self.url = url }
  }

  /// What the sender has done so far.
  public struct Statistics: Sendable, Equatable {
    public var delivered = 0
    /// Events given up after every attempt, or refused by the receiver (a 4xx).
    public var failed = 0
    public var retries = 0
    /// Events dropped because the queue was full.
    public var dropped = 0
    public var queued = 0
  }

  public let configuration: Configuration
  private let said: @Sendable (String) -> Void
  private let shared = Locked(Shared())
  private let poster: HTTPPoster

  private struct Shared {
    var statistics = Statistics()
    var queue: [Waiting] = []
    /// Whether an event taken off the queue is being sent (it is still counted as waiting).
    var sending = false
    var waiter: CheckedContinuation<Void, Never>?
    var saidFull = false
    var lastSaid: String?
    var sequence = 0
  }

  /// An event waiting to go, and what is told when it is out of the sender's hands.
  private struct Waiting {
    var key: String
    var body: [UInt8]
    var handled: Countdown?
  }

  /// Why webhooks cannot be sent from this process: the system's libcurl is missing.
  public struct Unavailable: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// A sender to `configuration`'s URL, saying what goes wrong through `said`.
  /// - Throws: ``Unavailable`` when the system's libcurl is not installed (its message says
  ///   what to install). It is loaded at the first post, not here.
  public init(_ configuration: Configuration, said: @escaping @Sendable (String) -> Void = { _ in }) throws(Unavailable) {
    self.configuration = configuration
    self.said = said
    do {
      poster = try HTTPPoster()
    } catch {
      throw Unavailable(description: error.description)
    }
  }

  public var statistics: Statistics { shared.withLock { $0.statistics } }

  /// Queues the region, visit, signal integrity (and, with ``Configuration/sendsLocations``,
  /// location) events
  /// among `actions` of the receiver named `device`. Returns at once.
  public func take(_ actions: [LocationManager.Action], device: String) {
    take(actions, device: device, of: nil)
  }

  /// ``take(_:device:)`` for the actions of a monitor's `event`: their bodies carry the fix's
  /// `"time"` and the event's `"eventID"`, and their key is the event's, the same after a
  /// restart (`gpsbridge-DEVICE-event-ID`), so the one repeat a kill can cause is dropped by
  /// the receiver as any retry is.
  public func take(_ actions: [LocationManager.Action], device: String, of event: MonitorEvent?) {
    take(actions, device: device, of: event, handled: nil)
  }

  /// ``take(_:device:of:)``, calling `whenHandled` once every event queued for the actions is
  /// out of the sender's hands: delivered, refused, given up or dropped from a full queue;
  /// never for one still waiting when the sender stops.
  public func take(
    _ actions: [LocationManager.Action], device: String, of event: MonitorEvent, whenHandled: @escaping @Sendable () -> Void
  ) {
    let handled = Countdown(1, then: whenHandled)
    take(actions, device: device, of: event, handled: handled)
    handled.done()
  }

  private func take(_ actions: [LocationManager.Action], device: String, of event: MonitorEvent?, handled: Countdown?) {
    for action in actions {
      switch action {
      case .didEnterRegion, .didExitRegion, .didVisit, .didChangeSignalIntegrity: break
      case .didUpdateLocations where configuration.sendsLocations: break
      default: continue
      }
      handled?.add()
      enqueue(action, device: device, of: event, handled: handled)
    }
  }

  private func enqueue(_ action: LocationManager.Action, device: String, of event: MonitorEvent?, handled: Countdown?) {
    var dropped: Waiting?
    defer { dropped?.handled?.done() }
    let (full, waiter): (Bool, CheckedContinuation<Void, Never>?) = shared.withLock { shared in
      shared.sequence += 1
      // Unique across restarts too: the process, its start, the event's number; or the
      // monitor's event, whose id the restart keeps.
      let key = event.map { "gpsbridge-\(device)-event-\($0.id)" } ?? "gpsbridge-\(getpid())-\(Self.started)-\(shared.sequence)"
      var writer = JSONWriter(capacity: 512)
      writer.beginObject()
      writer.field("id", key)
      writer.field("device", device)
      writer.write(",")
      let line = action.jsonLine
      if let event {
        // The action's fields, then the fix's time and the event's number ("id" is the key's).
        writer.write(String(line.dropFirst().dropLast()))
        if let date = event.date { writer.field("time", iso8601(date)) }
        writer.field("eventID", Int(event.id))
        if event.detectedAtStart { writer.field("detectedAtStart", true) }
        writer.endObject()
      } else {
        writer.write(String(line.dropFirst()))
      }
      var full = false
      if shared.queue.count >= configuration.queueLimit {
        dropped = shared.queue.removeFirst()
        shared.statistics.dropped += 1
        full = !shared.saidFull
        shared.saidFull = true
      }
      shared.queue.append(Waiting(key: key, body: writer.bytes, handled: handled))
      shared.statistics.queued = shared.queue.count + (shared.sending ? 1 : 0)
      defer { shared.waiter = nil }
      return (full, shared.waiter)
    }
    if full {
      said("gpsbridge: webhook \(configuration.url.redacted): \(configuration.queueLimit) events wait already: dropping the oldest.")
    }
    waiter?.resume()
  }

  private static let started = Int(Date().timeIntervalSince1970)

  /// Sends events as they come until the task is cancelled.
  public func run() async {
    while !Task.isCancelled {
      guard let first = await next() else { return }
      // Off the queue while it is sent (a full queue making room drops another), still
      // counted as waiting; one cut short by the end goes back first: unsent, and counted so.
      guard await deliver(key: first.key, body: first.body) else {
        shared.withLock { shared in
          shared.queue.insert(first, at: 0)
          shared.sending = false
          shared.statistics.queued = shared.queue.count
        }
        return
      }
      shared.withLock { shared in
        shared.sending = false
        shared.statistics.queued = shared.queue.count
      }
      first.handled?.done()
    }
  }

  /// The first event waiting, taken off the queue, waiting for one; `nil` once cancelled.
  private func next() async -> Waiting? {
    while !Task.isCancelled {
      let first = shared.withLock { shared -> Waiting? in
        guard !shared.queue.isEmpty else { return nil }
        shared.sending = true
        return shared.queue.removeFirst()
      }
      if let first { return first }
      await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          let ready = shared.withLock { shared in
            guard shared.queue.isEmpty else { return true }
            shared.waiter = continuation
            return false
          }
          if ready { continuation.resume() }
        }
      } onCancel: {
        shared.withLock { shared in
          defer { shared.waiter = nil }
          return shared.waiter
        }?.resume()
      }
    }
    return nil
  }

  /// One event, tried until it is delivered, refused, or out of attempts: then `true`;
  /// `false` when the sender stops first.
  private func deliver(key: String, body: [UInt8]) async -> Bool {
    let request = HTTPPoster.Request(
      url: configuration.url.absoluteString, body: body, headers: ["Content-Type: application/json", "Idempotency-Key: \(key)"],
      userAgent: "gpsbridge/\(GPSBridge.version)", timeout: configuration.timeout,
      certificateAuthorities: configuration.certificateAuthorities)
    var wait = configuration.firstRetry
    for attempt in 1...max(1, configuration.attempts) {
      let problem: String
      switch await poster.post(request) {
      case .answered(let status) where (200..<300).contains(status):
        shared.withLock { shared in
          shared.statistics.delivered += 1
          // The next problem, whatever it is, is news.
          shared.lastSaid = nil
        }
        return true
      case .answered(let status) where (400..<500).contains(status) && status != 408 && status != 429:
        shared.withLock { $0.statistics.failed += 1 }
        say("the receiver refuses events (HTTP \(status))", "they are not sent again")
        return true
      case .answered(let status):
        problem = "HTTP \(status)"
      case .failed(let code, let reason):
        problem = Self.reason(code, reason)
      case .unavailable(let reason):
        // It cannot go away: no retries, said once.
        shared.withLock { $0.statistics.failed += 1 }
        say(reason, "events are not sent")
        return true
      case .cancelled:
        return false
      }
      guard !Task.isCancelled else { return false }
      guard attempt < configuration.attempts else {
        shared.withLock { $0.statistics.failed += 1 }
        say(problem, "an event is given up after \(attempt) attempt\(attempt == 1 ? "" : "s")")
        return true
      }
      say(problem, "trying again (up to \(configuration.attempts) attempts an event, backing off)")
      shared.withLock { $0.statistics.retries += 1 }
      try? await Task.sleep(for: wait)
      wait = wait * 2
    }
    return true
  }

  /// Says `problem` (and what is done about it) once while it stays the problem: a receiver
  /// that answers 500 for an hour is one line, not one an event; the summary at the end
  /// counts what was given up.
  private func say(_ problem: String, _ consequence: String) {
    let new = shared.withLock { shared in
      defer { shared.lastSaid = problem }
      return shared.lastSaid != problem
    }
    if new { said("gpsbridge: webhook \(configuration.url.redacted): \(problem); \(consequence).") }
  }

  /// What went wrong, in a few words: libcurl's own for the rarer causes.
  private static func reason(_ code: Int32, _ described: String) -> String {
    switch code {
    case LibCURL.timedOut: "no answer in time"
    case LibCURL.couldNotConnect: "cannot connect"
    case LibCURL.couldNotResolveHost: "the host name does not resolve"
    case LibCURL.tooManyRedirects: "it redirects in a loop"
    case LibCURL.peerFailedVerification: "its certificate is not trusted (\(described))"
    default: described
    }
  }

  /// The URL as messages say it: its scheme, host and port only (a webhook's path often holds
  /// its secret, as Home Assistant's does).
  public var shownURL: String { configuration.url.redacted }
}
