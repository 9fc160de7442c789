import Framing
import NMEA
import Trigonometry

/// Evidence of spoofing in what any receiver sends, for the many that say nothing of it
/// themselves: a pure function of the fixes in order, so each rule is tested both ways, on
/// attacked simulations and on real receivers' logs.
///
/// - **Signals alike** (``SignalIntegrity/Source/alikeSignals``): a spoofer's satellites all
///   come from one transmitter, at one power. Six or more satellites with a signal strength,
///   all within ``alikeSpread`` dB-Hz of each other, in ``alikeEpochs`` epochs in a row
///   (real skies spread over 15 dB-Hz and more: low satellites are weaker).
/// - **Motion** (``SignalIntegrity/Source/motion``): a spoofer drags its victim's position
///   away, while the receiver's velocity (from Doppler, RMC's or VTG's speed and course)
///   still says how it moves. Over the last ``motionWindow`` of fixes in a row (no gap over
///   two seconds), where the position went is compared with where the velocity took it; the
///   two apart by ``motionLeast`` metres or more (beyond what sudden changes of velocity
///   allow), at ``motionRate`` m/s or more, and parting steadily (in three steps of four, by
///   half that rate the same way), is evidence. A coarse position's one-digit jump, or
///   multipath's, is one step and no drag. A track is judged once it has lasted
///   ``motionSettling``: a receiver converges on its first fixes. A fix without a course while
///   moving, or a gap, starts a new track. Receivers that send no speed (GGA only) are not
///   judged.
/// - **Time rate** (``SignalIntegrity/Source/timeRate``, live only): the receiver's time runs
///   away from this machine's raw clock: ahead by about 7.5 ms a second or faster, said in
///   3 s; behind, said once it has gone on for 8 s (``TimeRateRule``).
/// - **Signals lost** (``SignalIntegrity/Source/signalsLost``): four or more satellites heard,
///   then none from one epoch to the next, and the fix kept two epochs so, not as dead
///   reckoning (``SignalsLostRule``).
///
/// A finding lasts until the rule that made it holds no longer (a clean window, a sky that
/// spreads). A receiver that says what its own detector sees (`NAV-STATUS`, `SEC-SIG`) is
/// believed over these (``SignalIntegrity/suspectSpoofing(_:)``).
package struct SignalHeuristics: Sendable {
  /// The most the signal strengths of a spoofed sky spread, dB-Hz.
  package static let alikeSpread = 1
  /// Satellites with a strength needed to judge a sky.
  package static let alikeSatellites = 6
  /// Epochs in a row a sky must be alike.
  package static let alikeEpochs = 3
  /// How much of the track the motion rule compares, nanoseconds.
  package static let motionWindow: Int64 = 4_000_000_000
  /// How far apart the position and the velocity's track must be, metres, and how fast they
  /// part, metres a second.
  package static let motionLeast = 15.0
  package static let motionRate = 3.0
  /// How long a track must have lasted before it is judged, nanoseconds: a receiver that has
  /// just found its fix converges on it for a while, moving without its velocity.
  package static let motionSettling: Int64 = 30_000_000_000

  /// Metres a degree of latitude (the mean Earth radius's).
  static let metresPerDegree = 6_371_008.8 * Double.pi / 180

  private var alike = 0
  private var alikeTime: UTCTime?
  /// The track since it last started afresh: each fix's time, position, and where the
  /// velocity had taken it by then (metres north and east of the first fix), oldest first.
  private var track: [Point] = []
  /// Where the track started: its first fix's position, the cosine of its latitude, its time.
  private var origin: (latitude: Double, longitude: Double, cosine: Double, time: Int64)?
  private var motionFound = false
  private var timeRate = TimeRateRule()
  private var signalsLost = SignalsLostRule()
  private var found: SignalIntegrity.Source?
  /// The shortest step between two fixes of a track, nanoseconds: fixes closer than this (a
  /// stream of made-up times) add nothing to it, so it stays a few hundred points at most.
  static let shortestStep: Int64 = 20_000_000

  fileprivate struct Point {
    var time: Int64
    /// How far the position is from where the velocity took it since the track's start,
    /// metres north and east.
    var apartNorth: Double
    var apartEast: Double
    var velocityNorth: Double
    var velocityEast: Double
    /// How far the velocity's track may be off since the start, metres: the mean of a step's
    /// two velocities is exact for a steady change, and off by at most half the change times
    /// the step for any other (a sudden stop).
    var slack: Double
    /// Where the velocity took it since the track's start, metres.
    var carriedNorth = 0.0
    var carriedEast = 0.0

    func carried(north: Double, east: Double, wentNorth: Double, wentEast: Double) -> Point {
      var point = self
      (point.carriedNorth, point.carriedEast) = (north, east)
      (point.apartNorth, point.apartEast) = (wentNorth - north, wentEast - east)
      return point
    }
  }

  package init() {}

  /// Takes the next fix; the evidence it and those before it give now (`nil`: none).
  package mutating func take(_ fix: Fix) -> SignalIntegrity.Source? {
    // Each rule takes every fix (each keeps its own track), in the order they are preferred.
    var heard = 0
    var least = Int.max
    var most = Int.min
    for satellite in fix.satellites {
      guard let snr = satellite.snr, snr > 0 else { continue }
      heard += 1
      least = min(least, snr)
      most = max(most, snr)
    }
    let signals = alikeSignals(fix, heard: heard, spread: heard > 0 ? most - least : 0)
    let motion = motionDisagrees(fix)
    let rate = timeRate.take(fix)
    let lost = signalsLost.take(fix, heard: heard)
    func holds(_ source: SignalIntegrity.Source) -> Bool {
      switch source {
      case .alikeSignals: signals
      case .motion: motion
      case .timeRate: rate
      case .signalsLost: lost
      default: false
      }
    }
    // The rule that found first stays the finding while it holds: no flapping between them.
    if let found, holds(found) { return found }
    found = signals ? .alikeSignals : motion ? .motion : rate ? .timeRate : lost ? .signalsLost : nil
    return found
  }

  /// `heard`: the fix's satellites with a signal strength; `spread`: between the strongest and
  /// the weakest of them.
  private mutating func alikeSignals(_ fix: Fix, heard: Int, spread: Int) -> Bool {
    // A fix for the same time again (an update) is no new epoch.
    guard fix.time != alikeTime else { return alike >= Self.alikeEpochs }
    alikeTime = fix.time
    alike = heard >= Self.alikeSatellites && spread <= Self.alikeSpread ? alike + 1 : 0
    return alike >= Self.alikeEpochs
  }

  private mutating func motionDisagrees(_ fix: Fix) -> Bool {
    guard let time = fix.timestamp?.nanosecondsSince1970, let latitude = fix.latitude, let longitude = fix.longitude,
      fix.hasPosition, let velocity = Self.velocity(fix)
    else {
      track.removeAll(keepingCapacity: true)
      return motionFound
    }
    // The same time again (an updated fix), or too soon after the last: nothing new.
    if let last = track.last, time >= last.time, time - last.time < Self.shortestStep { return motionFound }
    guard let last = track.last, time > last.time, time - last.time <= 2_000_000_000, let origin else {
      // A new track: it starts here, its discrepancies measured from this fix.
      track.removeAll(keepingCapacity: true)
      origin = (latitude, longitude, cosine(latitude * .pi / 180), time)
      track.append(Point(time: time, apartNorth: 0, apartEast: 0, velocityNorth: velocity.north, velocityEast: velocity.east, slack: 0))
      return motionFound
    }
    // Where the velocity took it over the step (the mean of the two ends'), against where it went.
    let seconds = Double(time - last.time) / 1e9
    var longitudeStep = longitude - origin.longitude
    if longitudeStep > 180 { longitudeStep -= 360 } else if longitudeStep < -180 { longitudeStep += 360 }
    let wentNorth = (latitude - origin.latitude) * Self.metresPerDegree
    let wentEast = longitudeStep * Self.metresPerDegree * origin.cosine
    let (changeNorth, changeEast) = (velocity.north - last.velocityNorth, velocity.east - last.velocityEast)
    let point = Point(
      time: time, apartNorth: 0, apartEast: 0, velocityNorth: velocity.north, velocityEast: velocity.east,
      slack: last.slack + (changeNorth * changeNorth + changeEast * changeEast).squareRoot() / 2 * seconds)
    let carriedNorth = last.carriedNorth + (last.velocityNorth + velocity.north) / 2 * seconds
    let carriedEast = last.carriedEast + (last.velocityEast + velocity.east) / 2 * seconds
    track.append(point.carried(north: carriedNorth, east: carriedEast, wentNorth: wentNorth, wentEast: wentEast))
    // Only the window is kept: the oldest point at least a window back, and those after it.
    guard let start = track.lastIndex(where: { time - $0.time >= Self.motionWindow }) else { return motionFound }
    track.removeFirst(start)
    // A receiver converging on its first fixes moves without its velocity: judged once settled.
    guard time - origin.time >= Self.motionSettling else { return motionFound }
    let first = track[0]
    let current = track[track.count - 1]
    let (north, east) = (current.apartNorth - first.apartNorth, current.apartEast - first.apartEast)
    let distance = (north * north + east * east).squareRoot()
    let apart = distance - (current.slack - first.slack)
    let span = Double(current.time - first.time) / 1e9
    guard apart >= Self.motionLeast, apart / span >= Self.motionRate else {
      motionFound = false
      return false
    }
    // Dragged, not jumped: most steps part the two further the same way (a coarse position's
    // one-digit jump, or multipath's, is one step).
    let (unitNorth, unitEast) = (north / distance, east / distance)
    var steady = 0
    for (before, after) in zip(track, track.dropFirst()) {
      let step = Double(after.time - before.time) / 1e9
      let along = (after.apartNorth - before.apartNorth) * unitNorth + (after.apartEast - before.apartEast) * unitEast
      if along >= Self.motionRate / 2 * step { steady += 1 }
    }
    motionFound = 4 * steady >= 3 * (track.count - 1)
    return motionFound
  }

  /// The fix's velocity north and east, metres a second: none while it moves without a course.
  private static func velocity(_ fix: Fix) -> (north: Double, east: Double)? {
    guard let speed = fix.speed else { return nil }
    guard let course = fix.course else { return speed < 0.5 ? (0, 0) : nil }
    let radians = course * .pi / 180
    return (speed * cosine(radians), speed * sine(radians))
  }
}
