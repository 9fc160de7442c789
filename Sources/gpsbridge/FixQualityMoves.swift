import GPSLocation
import NMEA

/// Calls `moved` each time `receiver`'s fix quality moves (GPS, DGPS, RTK float, RTK fixed, and
/// back), between epochs with a position: what `run --ntrip` and `serve` say on stderr, so a
/// fix that drops from RTK fixed is seen, and why (the corrections' health is said beside it).
func followFixQuality(of receiver: Receiver, moved: @escaping @Sendable (_ from: FixQuality, _ to: FixQuality) -> Void) {
  let quality = Shared<FixQuality?>(nil)
  receiver.observe(wanting: [.fixes]) { event in
    guard case .fix(let fix) = event, fix.hasPosition else { return }
    let before = quality.withLock { last in
      defer { last = fix.quality }
      return last
    }
    if let before, before != fix.quality { moved(before, fix.quality) }
  }
}
