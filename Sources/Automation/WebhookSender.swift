import Foundation
import GPSLocation
import Plumbing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Region, visit and significant-change events POSTed to a URL as JSON (`--webhook`), through
/// Foundation's `URLSession`, so `https` works. Events go one at a time, in order; an answer
/// other than 2xx, or none, is tried again with backoff, a bounded number of times, always with
/// the same `Idempotency-Key` (also the body's `id`), so a retry cannot trigger an automation
/// twice. The queue is bounded: when full, the oldest event is dropped, counted and said.
public final class WebhookSender: Sendable {
  public struct Configuration: Sendable {
    public var url: URL
    /// Tries per event, the first included.
    public var attempts = 5
    /// The wait before the first retry; it doubles after each.
    public var firstRetry: Duration = .seconds(1)
    /// How long one request may take.
    public var timeout: Duration = .seconds(10)
    /// The most events waiting.
    public var queueLimit = 1000
    /// Whether locations go too (significant changes, when those are what the manager reports).
    public var sendsLocations = false

    public init(url: URL) { self.url = url }

    /// Whether `url` can take webhooks: http or https, with a host.
    public static func accepts(_ url: URL) -> Bool {
      ["http", "https"].contains(url.scheme?.lowercased() ?? "") && !(url.host ?? "").isEmpty
    }
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
  private let session: URLSession

  private struct Shared {
    var statistics = Statistics()
    var queue: [(key: String, body: Data)] = []
    var waiter: CheckedContinuation<Void, Never>?
    var saidFull = false
    var lastSaid = ""
    var sequence = 0
  }

  public init(_ configuration: Configuration, said: @escaping @Sendable (String) -> Void = { _ in }) {
    self.configuration = configuration
    self.said = said
    let session = URLSessionConfiguration.ephemeral
    session.timeoutIntervalForRequest = Self.seconds(configuration.timeout)
    session.timeoutIntervalForResource = Self.seconds(configuration.timeout)
    self.session = URLSession(configuration: session)
  }

  public var statistics: Statistics { shared.withLock { $0.statistics } }

  /// Queues the region, visit (and, with ``Configuration/sendsLocations``, location) events
  /// among `actions` of the receiver named `device`. Returns at once.
  public func take(_ actions: [LocationManager.Action], device: String) {
    for action in actions {
      switch action {
      case .didEnterRegion, .didExitRegion, .didVisit: break
      case .didUpdateLocations where configuration.sendsLocations: break
      default: continue
      }
      enqueue(action, device: device)
    }
  }

  private func enqueue(_ action: LocationManager.Action, device: String) {
    let (full, waiter): (Bool, CheckedContinuation<Void, Never>?) = shared.withLock { shared in
      shared.sequence += 1
      // Unique across restarts too: the process, its start, the event's number.
      let key = "gpsbridge-\(getpid())-\(Self.started)-\(shared.sequence)"
      var writer = JSONWriter(capacity: 512)
      writer.beginObject()
      writer.field("id", key)
      writer.field("device", device)
      writer.write(",")
      writer.write(String(action.jsonLine.dropFirst()))
      var full = false
      if shared.queue.count >= configuration.queueLimit {
        shared.queue.removeFirst()
        shared.statistics.dropped += 1
        full = !shared.saidFull
        shared.saidFull = true
      }
      shared.queue.append((key, Data(writer.bytes)))
      shared.statistics.queued = shared.queue.count
      defer { shared.waiter = nil }
      return (full, shared.waiter)
    }
    if full {
      said("gpsbridge: webhook \(Self.redacted(configuration.url)): \(configuration.queueLimit) events wait already: dropping the oldest.")
    }
    waiter?.resume()
  }

  private static let started = Int(Date().timeIntervalSince1970)

  /// Sends events as they come until the task is cancelled.
  public func run() async {
    while !Task.isCancelled {
      guard let (key, body) = await next() else { return }
      await deliver(key: key, body: body)
      shared.withLock { shared in
        shared.queue.removeFirst()
        shared.statistics.queued = shared.queue.count
      }
    }
  }

  /// The first event waiting, waiting for one; `nil` once cancelled.
  private func next() async -> (String, Data)? {
    while !Task.isCancelled {
      if let first = shared.withLock({ $0.queue.first }) { return first }
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

  /// One event, tried until it is delivered, refused, or out of attempts.
  private func deliver(key: String, body: Data) async {
    var request = URLRequest(url: configuration.url)
    request.httpMethod = "POST"
    request.httpBody = body
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
    request.setValue("gpsbridge/\(GPSBridge.version)", forHTTPHeaderField: "User-Agent")
    var wait = configuration.firstRetry
    for attempt in 1...max(1, configuration.attempts) {
      let problem: String
      do {
        let (_, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if (200..<300).contains(status) {
          shared.withLock { $0.statistics.delivered += 1 }
          return
        }
        if (400..<500).contains(status), status != 408, status != 429 {
          shared.withLock { $0.statistics.failed += 1 }
          say("the receiver refused an event (HTTP \(status)): it is not sent again")
          return
        }
        problem = "HTTP \(status)"
      } catch {
        problem = Self.reason(error)
      }
      guard attempt < configuration.attempts, !Task.isCancelled else {
        shared.withLock { $0.statistics.failed += 1 }
        say("\(problem); gave up on an event after \(attempt) attempt\(attempt == 1 ? "" : "s")")
        return
      }
      say("\(problem); trying again (up to \(configuration.attempts) attempts, backing off)")
      shared.withLock { $0.statistics.retries += 1 }
      try? await Task.sleep(for: wait)
      wait = wait * 2
    }
  }

  /// Says `message` once while it stays the same.
  private func say(_ message: String) {
    let new = shared.withLock { shared in
      defer { shared.lastSaid = message }
      return shared.lastSaid != message
    }
    if new { said("gpsbridge: webhook \(Self.redacted(configuration.url)): \(message).") }
  }

  private static func reason(_ error: any Error) -> String {
    guard let error = error as? URLError else { return "\(error)" }
    switch error.code {
    case .timedOut: return "no answer in time"
    case .httpTooManyRedirects: return "it redirects in a loop"
    case .cannotConnectToHost: return "cannot connect"
    case .cannotFindHost, .dnsLookupFailed: return "the host name does not resolve"
    default: return error.localizedDescription
    }
  }

  /// The URL as messages say it: its scheme, host and port only (a webhook's path often holds
  /// its secret, as Home Assistant's does).
  public var shownURL: String { Self.redacted(configuration.url) }

  static func redacted(_ url: URL) -> String {
    let port = url.port.map { ":\($0)" } ?? ""
    return "\(url.scheme ?? "http")://\(url.host ?? "")\(port)/…"
  }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }
}
