/// The satellites in view, kept per GSV group (one per talker and signal) across epochs:
/// receivers often send GSV less often than they send fixes, and the sky changes slowly.
/// Bounded: at most 32 groups of 64 satellites.
///
/// Loops here are written with indices: the generic algorithms (`firstIndex(where:)`, `for
/// … in` over a collection) allocate per element in debug builds, and the tests count
/// allocations.
struct SkyView: Sendable {
  struct Group: Sendable {
    var talker: Talker
    var signalID: Int?
    var satellites: [GSV.Satellite]
  }

  var groups: [Group] = []
  /// Changes whenever a group's satellites change, so a list built from them can be reused.
  private(set) var version = 0

  mutating func add(_ gsv: GSV) {
    version &+= 1
    var index = 0
    while index < groups.count, groups[index].talker != gsv.talker || groups[index].signalID != gsv.signalID { index += 1 }
    if index == groups.count {
      guard groups.count < 32 else { return }
      groups.append(Group(talker: gsv.talker, signalID: gsv.signalID, satellites: []))
      groups[index].satellites.reserveCapacity(64)
    }
    if gsv.messageNumber == 1 { groups[index].satellites.removeAll(keepingCapacity: true) }
    var satellite = 0
    while satellite < gsv.satellites.count, groups[index].satellites.count < 64 {
      groups[index].satellites.append(gsv.satellites[satellite])
      satellite += 1
    }
  }

  /// One entry per satellite (signals of the same satellite merged, keeping the strongest
  /// SNR), in the order first seen, marked used from `used`; written into `result`, whose
  /// storage is reused when nothing else holds it.
  func satellites(used: UsedSatellites, into result: inout [Fix.Satellite]) {
    result.removeAll(keepingCapacity: true)
    result.reserveCapacity(64)
    // Only a talker's second signal, or a combined talker's group, can repeat a satellite; the
    // list is searched only then.
    var mayRepeat = false
    for index in 0..<groups.count where !mayRepeat {
      let talker = groups[index].talker
      mayRepeat = talker.constellation == nil
      for earlier in 0..<index where groups[earlier].talker == talker { mayRepeat = true }
    }
    for index in 0..<groups.count {
      let talkerConstellation = groups[index].talker.constellation
      for position in 0..<groups[index].satellites.count {
        let satellite = groups[index].satellites[position]
        let byNumber = Constellation(nmeaPRN: satellite.number)
        let constellation: Constellation? =
          talkerConstellation == .gps && byNumber == .sbas ? .sbas : (talkerConstellation ?? byNumber)
        if mayRepeat, let existing = Self.index(in: result, of: satellite.number, constellation) {
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
  }

  static func index(in list: [Fix.Satellite], of number: Int, _ constellation: Constellation?) -> Int? {
    for index in 0..<list.count where list[index].number == number && list[index].constellation == constellation {
      return index
    }
    return nil
  }
}
