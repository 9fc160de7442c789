import TimeService

extension Station {
  /// What `gpsbridge serve` does with each receiver it serves, as a client of closures (the
  /// shape of `LocationManager`): the program's live values are the gpsd server, the status
  /// page, an NTRIP caster's corrections and the engine with MQTT and webhooks; a test gives
  /// its own, so the wiring (what starts with a receiver, what wraps what, what stops when it
  /// leaves) is tested without a network.
  public struct Outputs: Sendable {
    /// Serves a member's receiver to gpsd's clients, until the receiver ends or the task is
    /// cancelled.
    public var gpsd: @Sendable (Member) async -> Void
    /// Runs a member's serving (`serving`), showing the member meanwhile: the status page's
    /// part. The default only runs it.
    public var page: @Sendable (Member, _ serving: @Sendable () async -> Void) async -> Void
    /// Streams RTK corrections into a member's receiver until the task is cancelled; what it
    /// throws ends the stream for good (it is said, and the member is served on). `nil`: no
    /// corrections.
    public var corrections: (@Sendable (Member) async throws -> Void)?
    /// Follows a member with the engine (its regions and visits, and where their events go)
    /// until the task is cancelled. `nil`: nothing follows.
    public var zones: (@Sendable (Member) async -> Void)?
    /// Told of each member as it is admitted, before it is served (to say what happens to it).
    public var admitted: @Sendable (Member) -> Void
    /// Hears, in words for people, what happens to the outputs.
    public var say: @Sendable (String) -> Void

    public init(
      gpsd: @escaping @Sendable (Member) async -> Void,
      page: @escaping @Sendable (Member, _ serving: @Sendable () async -> Void) async -> Void = { _, serving in await serving() },
      corrections: (@Sendable (Member) async throws -> Void)? = nil, zones: (@Sendable (Member) async -> Void)? = nil,
      admitted: @escaping @Sendable (Member) -> Void = { _ in }, say: @escaping @Sendable (String) -> Void = { _ in }
    ) {
      self.gpsd = gpsd
      self.page = page
      self.corrections = corrections
      self.zones = zones
      self.admitted = admitted
      self.say = say
    }
  }

  /// Serves every receiver of the station (see ``run(serving:)``) through `outputs`: as a
  /// member is admitted it is announced, its corrections and its engine start, and it is
  /// served to gpsd's clients inside the page's showing of it; when its serving ends, the
  /// corrections and the engine are stopped before its slot is freed.
  /// - Throws: as ``run(serving:)``.
  public func serve(_ outputs: Outputs) async throws(ClockFeedError) {
    try await run { member in
      outputs.admitted(member)
      let corrections = outputs.corrections.map { stream in
        Task {
          do {
            try await stream(member)
          } catch {
            outputs.say("Error: corrections: \(error)")
          }
        }
      }
      let zones = outputs.zones.map { follow in Task { await follow(member) } }
      await outputs.page(member) { await outputs.gpsd(member) }
      corrections?.cancel()
      zones?.cancel()
      await corrections?.value
      await zones?.value
    }
  }
}
