/// The satellites in view, kept per GSV group (one per talker and signal) across epochs:
/// receivers often send GSV less often than they send fixes, and the sky changes slowly.
/// Bounded: at most 32 groups of 64 satellites.
struct SkyView: Sendable {
  struct Group: Sendable {
    var talker: Talker
    var signalID: Int?
    var satellites: [GSV.Satellite]
  }

  var groups: [Group] = []

  mutating func add(_ gsv: GSV) {
    let index: Int
    if let existing = groups.firstIndex(where: { $0.talker == gsv.talker && $0.signalID == gsv.signalID }) {
      index = existing
    } else {
      guard groups.count < 32 else { return }
      groups.append(Group(talker: gsv.talker, signalID: gsv.signalID, satellites: []))
      index = groups.count - 1
    }
    if gsv.messageNumber == 1 { groups[index].satellites.removeAll(keepingCapacity: true) }
    for satellite in gsv.satellites where groups[index].satellites.count < 64 {
      groups[index].satellites.append(satellite)
    }
  }

  /// One entry per satellite (signals of the same satellite merged, keeping the strongest
  /// SNR), in the order first seen, marked used from `used`.
  func satellites(used: UsedSatellites) -> [Fix.Satellite] {
    var result: [Fix.Satellite] = []
    for group in groups {
      let talkerConstellation = group.talker.constellation
      for satellite in group.satellites {
        let byNumber = Constellation(nmeaPRN: satellite.number)
        let constellation: Constellation? =
          talkerConstellation == .gps && byNumber == .sbas ? .sbas : (talkerConstellation ?? byNumber)
        if let existing = result.firstIndex(where: { $0.constellation == constellation && $0.number == satellite.number }) {
          if let snr = satellite.snr, snr > (result[existing].snr ?? -1) { result[existing].snr = snr }
          continue
        }
        result.append(
          Fix.Satellite(
            constellation: constellation, number: satellite.number, elevation: satellite.elevation,
            azimuth: satellite.azimuth, snr: satellite.snr,
            isUsed: used.contains(satellite.number, constellation: constellation)))
      }
    }
    return result
  }
}
