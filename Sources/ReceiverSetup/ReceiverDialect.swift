import Framing

/// One kind of receiver's way of being set up: how its settings are read, changed, saved and
/// its speed changed. The transaction (``ReceiverSetup``) is the same for every kind; what
/// differs is here.
protocol ReceiverDialect: Sendable {
  var identity: ReceiverIdentity { get }
  /// Whether ``read(measured:)`` asks the receiver, so that reading again proves a change; a
  /// receiver that answers no question is only measured.
  var readsBack: Bool { get }
  /// Why this kind cannot take `change` (a setting it has no command for, a rate it cannot
  /// reach), before anything is written; `nil` when it can.
  func refusal(of change: ReceiverSettings, current: ReceiverSettings) -> String?
  /// Its settings now, as far as it says them; what it cannot be asked comes from `measured`
  /// (its output) and the port's speed.
  func read(measured: OutputMeasurement) async throws(SetupError) -> ReceiverSettings
  /// Makes `change` (the baud rate aside) in RAM, acknowledged where this kind acknowledges;
  /// returns what of it the receiver refused and the rest was made without (a key a firmware
  /// refuses, or a message a model lacks, among the integrity settings), said for people.
  func apply(_ change: ReceiverSettings, over current: ReceiverSettings) async throws(SetupError) -> [String]
  /// Tells the receiver to speak at `speed` from now on; its answer, which may come at either
  /// speed or not at all, is not waited for.
  func requestLineSpeed(_ speed: Int, current: ReceiverSettings) async throws(SetupError)
  /// Whether it answers at the port's speed now, within `time`.
  func answers(within time: Duration) async -> Bool
  /// Keeps `settings` over a power cycle.
  func save(_ settings: ReceiverSettings, current: ReceiverSettings) async throws(SetupError)
  /// Why this kind cannot be told to save, asked before anything is written; `nil` when it can.
  var saveRefusal: String? { get }
  /// The receiver's port the host talks through, whose settings are read and changed, when
  /// the kind has several and the receiver said which (u-blox: UART1, USB).
  var port: UBXPort? { get }
  /// What a save did, for people.
  var savedWhere: String { get }
  /// The receiver's own record of what `change` touches (the baud rate aside), as it holds it:
  /// whole blocks, keyed values, raw rates, not gpsbridge's summary of them, so that a rollback
  /// writes back exactly what was there.
  func snapshot(of change: ReceiverSettings, measured: OutputMeasurement) async throws(SetupError) -> Snapshot
  /// Writes `snapshot` back in RAM (and, after a save was tried, where saves go), each part on
  /// its own so a refusal does not stop the rest; whether every part was taken and reads back
  /// as it was.
  func restore(_ snapshot: Snapshot, saved: Bool) async -> Bool
}

extension ReceiverDialect {
  var saveRefusal: String? { nil }
  var port: UBXPort? { nil }
  var savedWhere: String { "saved to battery-backed RAM and flash" }
}

/// What a rollback writes back: u-blox blocks, generation 9 keyed values, or MediaTek's raw
/// sentence rates and fix interval; for a SiRF, what its output showed.
struct Snapshot: Sendable {
  var blocks: [UBXFrame] = []
  var values: [(ConfigurationKey, UInt64)] = []
  var fixInterval: Int?
  var sentenceRates: [Int]?
  var systems: Set<SatelliteSystem>?
  var sentences: Set<NMEASentenceType>?
}

/// Finds out what kind of receiver is on `link`: u-blox (`UBX-MON-VER`), then MediaTek
/// (`PMTK605`), then SiRF, known by its NMEA 2.2 output since it answers neither.
func identifyReceiver(_ link: SetupLink, measured: @Sendable () async -> OutputMeasurement) async throws(SetupError) -> any ReceiverDialect
{
  // Silence is an answer here (not this kind); Ctrl-C and an unplugged receiver are not.
  func unlessStopped<T>(_ work: () async throws(SetupError) -> T) async throws(SetupError) -> T? {
    do {
      return try await work()
    } catch .noAnswer {
      return nil
    }
  }
  if let version = try await unlessStopped({ () throws(SetupError) in
    try await link.exchange(.versionPoll, what: "UBX-MON-VER", isAnswer: { UBXVersion($0) != nil }).versionAnswer
  }), let version {
    if let generation = version.generation, generation >= 9 { return try await UBlox9Dialect.onItsPort(link, version: version) }
    return try await UBlox8Dialect.onItsPort(link, version: version)
  }
  if let answer = try await unlessStopped({ () throws(SetupError) in
    try await link.exchange(MTKSentence.queryRelease, isAnswer: { MTKSentence.release($0) != nil })
  }), let release = MTKSentence.release(answer) {
    return MTKDialect(link, release: release.release, model: release.model)
  }
  let output = await measured()
  guard output.epochs > 0, output.nmea22 else {
    throw .unsupported(
      "The receiver answered neither u-blox's UBX-MON-VER nor MediaTek's PMTK605, and "
        + (output.epochs == 0 ? "sent no epoch" : "its NMEA is not a SiRF's (NMEA 2.2)")
        + ": gpsbridge sets up u-blox, MediaTek and SiRF receivers. Check that the receiver is on this port, and that nothing else writes to it."
    )
  }
  return SiRFDialect(link)
}

extension UBXFrame {
  /// The version this `UBX-MON-VER` answer gives.
  var versionAnswer: UBXVersion? { UBXVersion(self) }
}
