import Framing

/// u-blox generation 9 and 10: keyed values, read with `CFG-VALGET` and set with `CFG-VALSET`,
/// in RAM, and with a save in battery-backed RAM and flash too; those of the port the host
/// talks through (``port``).
struct UBlox9Dialect: ReceiverDialect {
  let link: SetupLink
  let identity: ReceiverIdentity
  /// The port the host talks through, as `UBX-MON-COMMS` showed it; `nil` when the receiver
  /// could not say (UART1's keys are used then, as for a module on its serial line).
  let port: UBXPort?
  let keys: UBloxKey

  init(_ link: SetupLink, version: UBXVersion, port: UBXPort?) {
    self.link = link
    identity = ReceiverIdentity(version)
    self.port = port
    keys = UBloxKey(port: port ?? .uart1)
  }

  /// The dialect for a receiver whose port is found by asking it: `UBX-MON-COMMS` twice; the
  /// port whose received bytes grew by the second poll, at least, is the one that poll came
  /// through.
  static func onItsPort(_ link: SetupLink, version: UBXVersion) async throws(SetupError) -> UBlox9Dialect {
    // (A MON message is answered without an acknowledgement: asked as an exchange.)
    func counters() async throws(SetupError) -> UBXCommunications? {
      do {
        let answer = try await link.exchange(UBXCommunications.poll, what: "UBX-MON-COMMS") { UBXCommunications($0) != nil }
        return UBXCommunications(answer)
      } catch .noAnswer {
        return nil
      }
    }
    guard let first = try await counters(), let second = try await counters() else {
      return UBlox9Dialect(link, version: version, port: nil)
    }
    let port = second.portReceiving(UBXCommunications.poll.bytes.count, since: first)
    return UBlox9Dialect(link, version: version, port: port)
  }

  var readsBack: Bool { true }

  func refusal(of change: ReceiverSettings, current: ReceiverSettings) -> String? {
    guard change.baudRate != nil, let port, !port.hasBaudRate else { return nil }
    return "The receiver is on its \(port) port, which has no baud rate (it carries what the receiver sends at any rate): leave out --baud."
  }

  func read(measured: OutputMeasurement) async throws(SetupError) -> ReceiverSettings {
    do {
      return keys.settings(from: try await read(keys.all))
    } catch .cannotTake {
      // Every generation 9 has a measurement rate: refused that too, it is not what it said.
      guard (try? await read([UBloxKey.measurementRate])) != nil else {
        throw .unsupported(
          "The receiver says it is \(identity), but refuses CFG-VALGET, which every generation 9 and 10 receiver takes: it is not the kind it claims. Nothing was changed."
        )
      }
      // A model without some key refuses a read that names it: the others, one at a time. A
      // setting whose keys it lacks is left out, so a change to it is refused.
      var values: [ConfigurationKey: UInt64] = [:]
      for key in keys.all {
        if let value = try? await read([key]) { values.merge(value) { $1 } }
      }
      return keys.settings(from: values)
    }
  }

  func apply(_ change: ReceiverSettings, over current: ReceiverSettings) async throws(SetupError) -> [String] {
    var change = change
    let integrity = change.integrity
    change.baudRate = nil
    change.integrity = nil
    try await set(keys.values(for: change), layers: [.ram])
    guard let integrity else { return [] }
    return try await setIntegrity(integrity)
  }

  /// The integrity keys, one at a time: a key this firmware lacks, or refuses (some refuse
  /// CFG-ITFM on every boot), is said and the rest set; all refused is a refusal.
  private func setIntegrity(_ on: Bool) async throws(SetupError) -> [String] {
    var refused: [String] = []
    for (key, name) in keys.integrity {
      do {
        try await set([(key, on ? 1 : 0)], layers: [.ram])
      } catch .refused {
        refused.append(name)
      }
    }
    guard refused.count < keys.integrity.count else {
      throw .refused(request: "CFG-VALSET (\(refused.joined(separator: ", ")))")
    }
    return refused.map { "the receiver refused \($0) (a firmware without it, or one that refuses it): left as it was, the rest set" }
  }

  func requestLineSpeed(_ speed: Int, current: ReceiverSettings) async throws(SetupError) {
    guard let key = keys.baudRate else { throw .cannotTake("The receiver's \(keys.port) port has no baud rate.") }
    _ = try await link.send(UBXFrame.valueSet([(key, UInt64(speed))], layers: [.ram]).bytes)
  }

  func answers(within time: Duration) async -> Bool { await link.answersVersionPoll(within: time) }

  func save(_ settings: ReceiverSettings, current: ReceiverSettings) async throws(SetupError) {
    try await set(keys.values(for: settings), layers: [.batteryBacked, .flash])
  }

  func snapshot(of change: ReceiverSettings, measured: OutputMeasurement) async throws(SetupError) -> Snapshot {
    let keys = self.keys.values(for: change).map(\.0).filter { $0 != self.keys.baudRate }
    var values = try await read(keys)
    var snapshot = Snapshot(values: keys.compactMap { key in values[key].map { (key, $0) } })
    // The integrity keys one at a time: one this firmware lacks has nothing to put back.
    guard change.integrity != nil else { return snapshot }
    for (key, _) in self.keys.integrity {
      do {
        values = try await read([key])
      } catch .cannotTake {
        continue
      }
      if let value = values[key] { snapshot.values.append((key, value)) }
    }
    return snapshot
  }

  func restore(_ snapshot: Snapshot, saved: Bool) async -> Bool {
    // Refused or not (a receiver that refused the change refuses its undoing too), what counts
    // is what it reads back.
    for layers: [ConfigurationLayer] in saved ? [[.ram], [.batteryBacked, .flash]] : [[.ram]] {
      do {
        try await set(snapshot.values, layers: layers)
      } catch {
        guard case .refused = error else { return false }
        // One refused key refuses the whole message: each on its own, so the others go back.
        for value in snapshot.values {
          do {
            try await set([value], layers: layers)
          } catch {
            guard case .refused = error else { return false }
          }
        }
      }
    }
    guard let readBack = try? await read(snapshot.values.map(\.0)) else { return false }
    return snapshot.values.allSatisfy { readBack[$0.0] == $0.1 }
  }

  /// Reads `keys` from RAM.
  private func read(_ keys: [ConfigurationKey]) async throws(SetupError) -> [ConfigurationKey: UInt64] {
    var values: [ConfigurationKey: UInt64] = [:]
    for start in stride(from: 0, to: keys.count, by: 64) {
      let batch = Array(keys[start..<min(keys.count, start + 64)])
      // The answer to this request: one that holds these keys (a late answer to an earlier one
      // does not).
      let asked = Set(batch)
      let answer = try await link.exchange(.valueGet(batch, layer: .ram), what: "CFG-VALGET") {
        $0.configurationValues.map { asked.isSubset(of: $0.values.keys) } == true
          || $0.acknowledgement.map { !$0.accepted && $0.messageClass == 0x06 && $0.id == 0x8B } == true
      }
      guard let answered = answer.configurationValues else {
        throw .cannotTake(
          "The receiver has no setting \(batch.map(\.description).joined(separator: ", ")) (it refused to read it): this model cannot take that change."
        )
      }
      values.merge(answered.values) { $1 }
    }
    return values
  }

  /// Sets `values` in `layers`, acknowledged.
  private func set(_ values: [(ConfigurationKey, UInt64)], layers: [ConfigurationLayer]) async throws(SetupError) {
    for start in stride(from: 0, to: values.count, by: 64) {
      let batch = Array(values[start..<min(values.count, start + 64)])
      let answer = try await link.exchange(.valueSet(batch, layers: layers), what: "CFG-VALSET") {
        $0.acknowledgement.map { $0.messageClass == 0x06 && $0.id == 0x8A } == true
      }
      guard answer.acknowledgement?.accepted == true else {
        throw .refused(request: "CFG-VALSET (\(batch.map { "\($0.0)=\($0.1)" }.joined(separator: ", ")))")
      }
    }
  }
}

extension SetupLink {
  /// Whether the receiver answers `UBX-MON-VER` within `time`.
  func answersVersionPoll(within time: Duration) async -> Bool {
    await answers(UBXFrame.versionPoll.bytes, within: time) { $0.ubx.flatMap(UBXVersion.init) != nil }
  }
}

extension UBXVersion {
  /// `FWVER=HPG 1.32` → HPG 1.32, or the software version.
  var firmware: String {
    extensions.lazy.compactMap { $0.hasPrefix("FWVER=") ? String($0.dropFirst(6)) : nil }.first ?? software
  }
}
