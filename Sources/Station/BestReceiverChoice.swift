import Framing
import NMEA
import Trigonometry

/// Which of several receivers a virtual `best` receiver follows, epoch by epoch, and the
/// position it gives: pure, so a replay at any speed chooses as the live receivers did.
///
/// Receivers are ranked, in this order:
/// 1. **alive**: its next epoch not overdue by more than half its own interval, or a second
///    if longer (the interval is learnt from the steps between its epochs' times; a machine
///    busy for half a second must not make a receiver look silent); `best` leaves a receiver
///    that falls silent then, or at once when it goes away, with the epochs the one chosen
///    gave meanwhile (each receiver's epochs of that long and ten seconds more are kept), so
///    none is missed;
/// 2. **integrity**: not spoofed, not jammed beyond its warning, its antenna neither shorted
///    nor open (``SignalIntegrity``);
/// 3. **fix class**: RTK fixed, then RTK float, then differential (DGPS, SBAS), then 3D, 2D,
///    dead reckoning;
/// 4. **stated accuracy**: the receiver's own horizontal accuracy, else its GST error
///    ellipse, else its HDOP times ``Rules/rangeError``;
/// 5. **corrections' age**, then **satellites used**.
///
/// The chosen one keeps its place unless another beats it, with hysteresis: it loses at once
/// when it falls silent, is attacked, loses its fix, or its class falls below another's; a
/// receiver whose class *rose* above it wins once it has held that class for
/// ``Rules/classHold``; one of the same class wins on accuracy only when its error has stayed
/// below ``Rules/accuracyMargin`` of the chosen's for ``Rules/accuracyHold``. Satellites and
/// corrections' age only order the first choice: a satellite or two coming and going never
/// switches.
///
/// A receiver whose position is farther from every other live receiver's than their stated
/// errors allow (``Rules/disagreement`` times the sum of the two errors, plus
/// ``Rules/agreementFloor`` and what their speed covers between the two epochs), while those others
/// agree among themselves, is said and not chosen; two receivers alone that disagree are said,
/// and the chosen one is kept (nothing says which is right).
///
/// At a switch the position does not jump: the difference between where `best` was (moved on
/// at its speed to the new epoch's time) and the receiver chosen is added to the chosen one's
/// positions and shrinks to nothing over ``Rules/blend``; except when leaving a receiver that
/// is attacked or apart from the others, whose position is the one not to keep.
///
/// The first choice waits ``Rules/gather`` after the first epoch, so that every receiver
/// there at start has been heard and compared once.
package struct BestReceiverChoice: Sendable {
  /// The numbers of the rules above.
  package struct Rules: Sendable {
    /// How long a receiver whose class rose above the chosen one's must hold it to win.
    package var classHold: Duration = .seconds(5)
    /// How long a receiver of the same class must stay more accurate to win.
    package var accuracyHold: Duration = .seconds(30)
    /// The share of the chosen one's error another's must stay below to win on accuracy.
    package var accuracyMargin = 0.5
    /// Metres of error per unit of HDOP, for a receiver that states no accuracy (a consumer
    /// receiver's range error, about 5 m at one sigma).
    package var rangeError = 5.0
    /// How many times the sum of two receivers' errors their positions may be apart.
    package var disagreement = 3.0
    /// Metres two receivers may always be apart (antennas on one boat, centimetre errors).
    package var agreementFloor = 2.0
    /// Epochs whose times are this close are compared for agreement.
    package var sameEpoch: Duration = .milliseconds(250)
    /// How long the difference between the receiver left and the one chosen takes to fade.
    package var blend: Duration = .seconds(5)
    /// The interval assumed of a receiver before its second epoch.
    package var firstInterval: Duration = .seconds(1)
    /// How late beyond its interval a fast receiver's epoch may come and it still counts as
    /// alive (see ``BestReceiverChoice``'s first rule).
    package var lateness: Duration = .seconds(1)
    /// The most of each receiver's last epochs kept (those of its patience and ten seconds
    /// more), so that a switch after a silence publishes those of the receiver chosen that
    /// `best` missed.
    package var kept = 1024
    /// How far the last time `best` published may be ahead of the newest epoch of the receiver
    /// chosen before it is taken for the other receiver's wrong clock (a week rolled over, a
    /// spoofer's slew) rather than an epoch already published: then that epoch goes out.
    package var implausibleLead: Duration = .seconds(10)
    /// The longest interval learnt from a receiver's first steps (a receiver at 0.1 Hz).
    package var longestInterval: Duration = .seconds(10)
    /// How long after the first epoch heard the first choice waits, so that every receiver
    /// there at start has been heard (and compared) once.
    package var gather: Duration = .seconds(1)

    package init() {}
  }

  /// Why `best` moved to another receiver.
  package enum Reason: String, Sendable, Equatable {
    case first = "the first with a fix"
    case silent = "the receiver it followed went silent"
    case gone = "the receiver it followed went away"
    case attacked = "the receiver it followed reports interference"
    case lostFix = "the receiver it followed lost its fix"
    case worseClass = "the receiver it followed fell to a worse fix"
    case betterClass = "a better fix held"
    case moreAccurate = "a more accurate fix held"
    case disagrees = "the receiver it followed disagrees with the others"
  }

  /// A move of `best` from one receiver to another.
  package struct Switch: Sendable, Equatable {
    package var from: String?
    package var to: String
    package var reason: Reason
    /// The time of the epoch that made the switch (at a ``tick(at:)``, the newest epoch of the
    /// receiver chosen), by the receivers' clock.
    package var time: UTCTimestamp?
  }

  /// What one epoch gives.
  package struct Outcome: Sendable {
    /// The fixes `best` publishes now, oldest first: the chosen receiver's epoch, blended;
    /// none when the epoch taken was another receiver's; at a switch, the epochs of the
    /// receiver chosen that `best` has not published a time of yet.
    package var fixes: [Fix] = []
    /// The switch this epoch made, if it made one.
    package var switched: Switch?
    /// Receivers found disagreeing with the others since the last epoch, said once each.
    package var disagreeing: [String] = []
  }

  private struct Member {
    var fix: Fix
    /// Its last epochs before `fix`, oldest first: at a switch, those `best` missed go out.
    var earlier: [Fix] = []
    var integrity: SignalIntegrity?
    var heard: Duration
    /// The step between its epochs' times, learnt from the first few.
    var interval: Duration
    var steps = 0
    /// Since when its class has been what it is now, and whether it got there by falling.
    var classSince: Duration
    var classFell = false
    /// Since when it has been more accurate than the chosen one by the margin.
    var moreAccurateSince: Duration?
    /// Apart from every other receiver of the same moment.
    var apart = false
    /// Apart, while the others agree: not chosen.
    var disagrees = false
  }

  private let rules: Rules
  private var members: [String: Member] = [:]
  /// Receivers in the order first heard: ties go to the earlier.
  private var order: [String] = []
  private(set) package var chosen: String?
  /// When the first epoch was heard.
  private var firstHeard: Duration?
  /// Whether the receivers' agreement has been judged once (the first choice waits for it).
  private var judged = false
  /// The difference left to blend out (degrees of latitude, longitude; metres of altitude)
  /// and when it began.
  private var blending: (latitude: Double, longitude: Double, altitude: Double, since: Duration)?
  /// The last fix `best` published: a switch blends from where it was.
  private var lastPublished: Fix?

  package init(rules: Rules = Rules()) {
    self.rules = rules
  }

  /// Takes an epoch of `receiver` heard at `now` (by a clock that only goes forward: the
  /// arrival's for live receivers, the fix's time for a replay), under `integrity`.
  package mutating func take(_ fix: Fix, of receiver: String, integrity: SignalIntegrity? = nil, at now: Duration) -> Outcome {
    note(fix, of: receiver, integrity: integrity, at: now)
    var outcome = Outcome()
    outcome.disagreeing = findDisagreements(around: receiver, at: now)
    outcome.switched = choose(at: now, time: fix.timestamp)
    if receiver == chosen || outcome.switched != nil { outcome.fixes = publishable(at: now, switched: outcome.switched) }
    return outcome
  }

  /// Looks again without a new epoch, at `now`: the receiver followed may have gone silent
  /// (see ``silenceDeadline``). A switch publishes the epochs of the receiver chosen whose
  /// times `best` has not published yet: its epochs go on with none missing.
  package mutating func tick(at now: Duration) -> Outcome {
    var outcome = Outcome()
    outcome.switched = choose(at: now, time: nil)
    if outcome.switched != nil { outcome.fixes = publishable(at: now, switched: outcome.switched) }
    return outcome
  }

  /// When the receiver followed counts as silent unless it is heard before: the moment to
  /// ``tick(at:)``, so that `best` leaves it then rather than at another receiver's next
  /// epoch (which would miss that epoch).
  package var silenceDeadline: Duration? {
    guard let chosen, let member = members[chosen] else { return nil }
    return member.heard + patience(member)
  }

  /// Switches when a rule says so; the switch, made by the epoch of `time` (`nil`: by none).
  private mutating func choose(at now: Duration, time: UTCTimestamp?) -> Switch? {
    let left = chosen
    guard chosen != nil || mayChooseFirst(at: now), let decision = switchReason(at: now),
      let next = decision.earner ?? best(at: now, excluding: decision.reason == .first ? nil : chosen)
    else { return nil }
    switchTo(next, at: now, blending: decision.reason != .attacked && decision.reason != .disagrees)
    return Switch(from: left, to: next, reason: decision.reason, time: time ?? members[next]?.fix.timestamp)
  }

  /// What `best` publishes of the chosen receiver now, blended, oldest first: its newest
  /// epoch when that is newer than the last `best` published (an epoch updated by a late
  /// sentence, or one the receiver left gave already, is not repeated); at a switch, also its
  /// kept epochs between the two, so that none is missed that it gave while the one left was
  /// silent. Its newest alone when there is nothing to compare: nothing published yet, an
  /// epoch without a date, a switch away from a receiver attacked or apart from the others
  /// (its time is not to be trusted), or a last time implausibly far ahead
  /// (``Rules/implausibleLead``).
  private mutating func publishable(at now: Duration, switched: Switch?) -> [Fix] {
    guard let chosen, let member = members[chosen] else { return [] }
    var gate = lastPublished?.timestamp
    if let reason = switched?.reason, reason == .attacked || reason == .disagrees { gate = nil }
    if let last = gate, let time = member.fix.timestamp,
      Duration.nanoseconds(last.nanosecondsSince1970 - time.nanosecondsSince1970) > rules.implausibleLead
    {
      gate = nil
    }
    guard let last = gate, let newest = member.fix.timestamp else {
      // An undated epoch updated by a late sentence: its time of day says it is the same.
      if switched == nil, let previous = lastPublished, previous.timestamp == nil, member.fix.timestamp == nil,
        previous.time == member.fix.time
      {
        return []
      }
      return [emit(member.fix, at: now)]
    }
    guard newest > last else { return [] }
    var published: [Fix] = []
    var after = last
    for fix in (switched == nil ? [] : member.earlier) + [member.fix] {
      guard let time = fix.timestamp, time > after, time <= newest else { continue }
      after = time
      published.append(emit(fix, at: now))
    }
    return published
  }

  /// `fix` blended, as `best` publishes it.
  private mutating func emit(_ fix: Fix, at now: Duration) -> Fix {
    let published = blended(fix, at: now)
    lastPublished = published
    return published
  }

  /// Whether `receiver` is apart from the others while they agree among themselves: then it
  /// is not chosen. (Two receivers apart are both said, and neither is left out.)
  package func isLeftOut(_ receiver: String) -> Bool { members[receiver]?.disagrees ?? false }

  /// Forgets a receiver that is gone (unplugged, ended): `best` leaves it at its next epoch.
  package mutating func remove(_ receiver: String) {
    members[receiver] = nil
    order.removeAll { $0 == receiver }
  }

  /// Whether the first choice may be made: once every receiver there at start has been heard
  /// and compared (``Rules/gather``), or, if they cannot be compared (no common moment, no
  /// stated error), a first interval later.
  private func mayChooseFirst(at now: Duration) -> Bool {
    let since = now - (firstHeard ?? now)
    guard since >= rules.gather else { return false }
    return judged || liveCount(at: now) < 2 || since >= rules.gather + rules.firstInterval * 2
  }

  // MARK: - What is known of each receiver

  private mutating func note(_ fix: Fix, of receiver: String, integrity: SignalIntegrity?, at now: Duration) {
    if firstHeard == nil { firstHeard = now }
    guard var member = members[receiver] else {
      members[receiver] = Member(fix: fix, integrity: integrity, heard: now, interval: rules.firstInterval, classSince: now)
      order.append(receiver)
      return
    }
    // A fix updated by a late sentence is the same epoch: it says nothing of the interval,
    // nor that the receiver is alive now. The interval is the step between its epochs'
    // times, not between their arrivals: a backlog read at once (a port opened after the
    // receiver began) arrives in a burst. A step over twice the interval (epochs missed, a
    // receiver back after a silence) is no interval, once the first few have set it.
    if fix.timestamp != member.fix.timestamp || fix.timestamp == nil {
      if let time = fix.timestamp, let before = member.fix.timestamp {
        let step = Duration.nanoseconds(time.nanosecondsSince1970 - before.nanosecondsSince1970)
        if step > .zero, step <= member.interval * 2 || (member.steps < 2 && step <= rules.longestInterval) {
          member.interval = step
          member.steps += 1
        }
      }
      member.heard = now
      // Kept for as long as the receiver followed may be silent before it is left, and ten
      // seconds more (receivers whose lines delay them differently, replays that drift
      // apart): at a switch then, those `best` has not published go out.
      if member.fix.timestamp != nil { member.earlier.append(member.fix) }
      let keptFor = patience(member) + .seconds(10)
      while let oldest = member.earlier.first?.timestamp, let newest = fix.timestamp,
        member.earlier.count > rules.kept || Duration.nanoseconds(newest.nanosecondsSince1970 - oldest.nanosecondsSince1970) > keptFor
      {
        member.earlier.removeFirst()
      }
    }
    let (rank, before) = (Self.classRank(fix), Self.classRank(member.fix))
    if rank != before { (member.classSince, member.classFell) = (now, rank < before) }
    (member.fix, member.integrity) = (fix, integrity)
    members[receiver] = member
    if receiver != chosen, let chosen, let theirs = members[chosen] {
      let better =
        Self.classRank(fix) == Self.classRank(theirs.fix)
        && error(of: fix).map { mine in error(of: theirs.fix).map { mine < $0 * rules.accuracyMargin } ?? false } ?? false
      members[receiver]?.moreAccurateSince = better ? (member.moreAccurateSince ?? now) : nil
    }
  }

  private func isAlive(_ member: Member, at now: Duration) -> Bool {
    now - member.heard <= patience(member)
  }

  /// How long after its last epoch a receiver is still alive: its interval and half again,
  /// or its interval and ``Rules/lateness`` if longer (a 10 Hz receiver's epochs arrive with
  /// tens of milliseconds of jitter, and a busy machine reads them late).
  private func patience(_ member: Member) -> Duration {
    max(member.interval * 3 / 2, member.interval + rules.lateness)
  }

  private func isEligible(_ member: Member, at now: Duration) -> Bool {
    guard isAlive(member, at: now), member.fix.hasPosition, !member.disagrees else { return false }
    return !Self.isAttacked(member.integrity)
  }

  private static func isAttacked(_ integrity: SignalIntegrity?) -> Bool {
    guard let integrity else { return false }
    return integrity.isAlarming || integrity.antenna == .open
  }

  /// RTK fixed 6, float 5, differential 4, 3D 3, 2D 2, dead reckoning 1, none 0.
  static func classRank(_ fix: Fix) -> Int {
    guard fix.hasPosition else { return 0 }
    switch fix.quality {
    case .rtkFixed: return 6
    case .rtkFloat: return 5
    case .dgps, .pps: return 4
    case .deadReckoning, .manual, .simulator: return 1
    case .invalid, .gps: return fix.mode == .threeD ? 3 : 2
    }
  }

  /// The receiver's stated horizontal error, metres.
  func error(of fix: Fix) -> Double? {
    if let accuracy = fix.horizontalAccuracy { return accuracy }
    if let ellipse = fix.errorEstimate, let major = ellipse.semiMajor { return major }
    return fix.hdop.map { $0 * rules.rangeError }
  }

  // MARK: - Choosing

  /// Why the chosen receiver must be left now, if it must, and the receiver that earned it
  /// when one did by holding a better fix (else the best is taken).
  private func switchReason(at now: Duration) -> (reason: Reason, earner: String?)? {
    guard let chosen else { return (.first, nil) }
    guard let current = members[chosen] else { return (.gone, nil) }
    if !isAlive(current, at: now) { return (.silent, nil) }
    if Self.isAttacked(current.integrity) { return (.attacked, nil) }
    if !current.fix.hasPosition { return (.lostFix, nil) }
    if current.disagrees { return (.disagrees, nil) }
    let mine = Self.classRank(current.fix)
    for name in order where name != chosen {
      guard let other = members[name], isEligible(other, at: now) else { continue }
      let theirs = Self.classRank(other.fix)
      if theirs > mine {
        // The chosen one's class fell below another's: it loses at once. Another's rose
        // above it: that one wins once it has held its class.
        if current.classFell, current.classSince >= other.classSince { return (.worseClass, nil) }
        if now - other.classSince >= rules.classHold { return (.betterClass, name) }
      } else if theirs == mine, let since = other.moreAccurateSince, now - since >= rules.accuracyHold {
        return (.moreAccurate, name)
      }
    }
    return nil
  }

  /// The best eligible receiver by the ranking (not `excluding`).
  private func best(at now: Duration, excluding: String?) -> String? {
    var bestName: String?
    for name in order where name != excluding {
      guard let member = members[name], isEligible(member, at: now) else { continue }
      guard let current = bestName.flatMap({ members[$0] }) else {
        bestName = name
        continue
      }
      if ranks(member.fix, above: current.fix) { bestName = name }
    }
    return bestName
  }

  private func ranks(_ fix: Fix, above other: Fix) -> Bool {
    let (mine, theirs) = (Self.classRank(fix), Self.classRank(other))
    if mine != theirs { return mine > theirs }
    let (myError, theirError) = (error(of: fix) ?? .infinity, error(of: other) ?? .infinity)
    if myError != theirError { return myError < theirError }
    let (myAge, theirAge) = (fix.differentialAge ?? .infinity, other.differentialAge ?? .infinity)
    if myAge != theirAge { return myAge < theirAge }
    return (fix.satellitesUsed ?? 0) > (other.satellitesUsed ?? 0)
  }

  /// Follows `next` from now; with `blending`, from where `best` last was, the difference
  /// fading over ``Rules/blend`` (not when leaving a receiver attacked or apart from the
  /// others: its position is the one not to keep).
  private mutating func switchTo(_ next: String, at now: Duration, blending: Bool) {
    chosen = next
    for name in order { members[name]?.moreAccurateSince = nil }
    guard blending, let last = lastPublished, let taken = members[next], let time = taken.fix.timestamp,
      let difference = Self.difference(from: taken.fix, to: Self.projected(last, to: time))
    else {
      self.blending = nil
      return
    }
    let altitude = last.altitude.flatMap { old in taken.fix.altitude.map { old - $0 } } ?? 0
    self.blending = (difference.north, difference.east, altitude, taken.heard)
  }

  /// Where `fix` would be at `time`, moving on as it moved (the receiver left may be an epoch
  /// or two behind the one chosen: its last position as it was would be a step back).
  private static func projected(_ fix: Fix, to time: UTCTimestamp) -> Fix {
    guard let then = fix.timestamp, let speed = fix.speed, let course = fix.course, let latitude = fix.latitude,
      let longitude = fix.longitude
    else { return fix }
    let metres = speed * Double(time.nanosecondsSince1970 - then.nanosecondsSince1970) / 1e9
    let radians = course * .pi / 180
    var moved = fix
    moved.latitude = latitude + metres * cosine(radians) / metresPerDegree
    moved.longitude = longitude + metres * sine(radians) / (metresPerDegree * cosine(latitude * .pi / 180))
    return moved
  }

  /// Metres of a degree of latitude (a sphere of the mean Earth radius).
  static let metresPerDegree = 111_194.9

  /// Degrees north and east from `fix` to `other`.
  private static func difference(from fix: Fix, to other: Fix) -> (north: Double, east: Double)? {
    guard let latitude = fix.latitude, let longitude = fix.longitude, let theirLatitude = other.latitude,
      let theirLongitude = other.longitude
    else { return nil }
    var east = theirLongitude - longitude
    if east > 180 { east -= 360 } else if east < -180 { east += 360 }
    return (theirLatitude - latitude, east)
  }

  /// `fix` with what is left of the last switch's difference added.
  private mutating func blended(_ fix: Fix, at now: Duration) -> Fix {
    guard let blending, let latitude = fix.latitude, let longitude = fix.longitude else { return fix }
    let share = 1 - (now - blending.since) / rules.blend
    guard share > 0 else {
      self.blending = nil
      return fix
    }
    var fix = fix
    fix.latitude = latitude + blending.latitude * share
    var east = longitude + blending.longitude * share
    if east > 180 { east -= 360 } else if east < -180 { east += 360 }
    fix.longitude = east
    fix.altitude = fix.altitude.map { $0 + blending.altitude * share }
    return fix
  }

  // MARK: - Agreement

  /// Marks which receivers disagree with the others, after `receiver`'s new epoch; the ones
  /// that newly do.
  private mutating func findDisagreements(around receiver: String, at now: Duration) -> [String] {
    guard let newest = members[receiver]?.fix, let time = newest.timestamp else { return [] }
    // The receivers with an epoch of the same moment, and a position and an error.
    let together = order.filter { name in
      guard let fix = members[name]?.fix, fix.hasPosition, error(of: fix) != nil, let its = fix.timestamp else { return false }
      return abs(Self.seconds(between: its, and: time)) <= Double(rules.sameEpoch / .milliseconds(1)) / 1000
    }
    // Judged once every live receiver has its epoch of this moment in: judged earlier, the
    // first in would be compared with fewer than all and said apart.
    guard now - (firstHeard ?? now) >= rules.gather, together.count >= 2, together.count == liveCount(at: now) else { return [] }
    judged = true
    var newly: [String] = []
    for name in together {
      let others = together.filter { $0 != name }
      let apart = others.allSatisfy { !agree(name, $0) }
      // Two alone: said, neither left out. Three or more: left out when the others agree.
      let othersAgree = others.count >= 2 && others.indices.allSatisfy { i in others[(i + 1)...].allSatisfy { agree(others[i], $0) } }
      if apart, members[name]?.apart == false { newly.append(name) }
      members[name]?.apart = apart
      members[name]?.disagrees = apart && othersAgree
    }
    return newly
  }

  /// The live receivers with a position and a stated error: those that can be compared.
  private func liveCount(at now: Duration) -> Int {
    order.filter { name in
      members[name].map { isAlive($0, at: now) && $0.fix.hasPosition && $0.fix.timestamp != nil && error(of: $0.fix) != nil } ?? false
    }.count
  }

  private func agree(_ one: String, _ other: String) -> Bool {
    guard let a = members[one]?.fix, let b = members[other]?.fix, let errorA = error(of: a), let errorB = error(of: b) else { return true }
    // Their errors, a floor for receivers that state centimetres on antennas apart, and what
    // motion covers between their two epochs' times.
    let apart = abs(
      Self.seconds(between: a.timestamp ?? .init(nanosecondsSince1970: 0), and: b.timestamp ?? .init(nanosecondsSince1970: 0)))
    let motion = max(a.speed ?? 0, b.speed ?? 0) * apart
    return Self.metres(between: a, and: b) <= rules.disagreement * (errorA + errorB) + rules.agreementFloor + motion
  }

  private static func seconds(between one: UTCTimestamp, and other: UTCTimestamp) -> Double {
    Double(one.nanosecondsSince1970 - other.nanosecondsSince1970) / 1e9
  }

  /// The ground distance between two fixes, metres (equirectangular: receivers on one box are
  /// metres apart).
  static func metres(between one: Fix, and other: Fix) -> Double {
    guard let (north, east) = difference(from: one, to: other), let latitude = one.latitude else { return .infinity }
    let y = north * metresPerDegree
    let x = east * metresPerDegree * cosine(latitude * .pi / 180)
    return (x * x + y * y).squareRoot()
  }
}
