import FoundationEssentials
import Trigonometry

/// Decides entry into and exit from circular regions, from fixes alone.
///
/// **What is judged.** Each fix gives a ``PositionEstimate`` (see ``NoiseEstimate``): the fix
/// itself while moving, the mean of the recent fixes while still. Its σ is the larger of the
/// stated accuracy and the noise learned from the receiver's own scatter, so a receiver that
/// claims 4 m while wandering by 15 is judged by its 15.
///
/// **Hysteresis.** An estimate is evidence of *inside* when it lies at least a margin within
/// the circle, and of *outside* when at least the margin beyond it; in between it is no
/// evidence. The margin is 2σ for a single fix (a fix that far out by chance is a 1-in-40
/// event) and 3σ for a mean (whose σ comes from few samples), at least
/// ``LocationEngine/Configuration/regionMinimumMargin`` (5 m) and at most half the radius.
/// A region's first state is decided the same way: not by one noisy fix near the edge.
///
/// **Dwell.** A transition happens once the opposite evidence has lasted
/// ``LocationEngine/Configuration/regionDwell`` of fix time (not wall-clock time; 3 s,
/// ``LocationEngine/Configuration/regionDwellWhileMoving``, once moving faster than a walk),
/// every estimate in between agreeing: one stray fix does not flap a region, nor do several
/// scattered ones. A region started in a state known beforehand (a `Monitor`'s, kept across a
/// restart) changes after ``LocationEngine/Configuration/regionDwellFromKnownState`` of agreeing
/// evidence, until a fix first agrees with it or changes it. Each
/// transition emits `didEnterRegion` / `didExitRegion` (if the region asks for it) and then
/// `didDetermineState`.
///
/// Together: a receiver parked on an edge, even with noise three times what it states, gives
/// no transitions (its mean stays within the margin); a car passing through a region at 15
/// m/s is reported entering within about 4 s of crossing the edge (the margin at its speed,
/// then the dwell), within 6 s when its noise is three times what it states.
///
/// **Index.** Regions sit in a grid of several cell sizes, each region at the level whose
/// cells are at least its diameter; a fix looks up one cell per level, plus the regions
/// that are inside, undecided or pending a transition. The cost per fix therefore depends on
/// the regions near the fix, not on how many are monitored. Regions that straddle the ±180°
/// meridian are only found from their own side of it.
struct RegionMonitor: Sendable {
  struct Entry: Sendable {
    var region: Region
    var state: RegionState = .unknown
    var candidate: RegionState?
    var candidateSince: Date?
    var cells: [Cell] = []
    /// Started in a state known beforehand, and no fix has yet agreed with it or changed it.
    var assumed = false
  }

  struct Cell: Hashable, Sendable {
    var level: Int8
    var x: Int32
    var y: Int32
  }

  /// Cell sizes in degrees, smallest first (about 55 m to 230 km at the equator).
  static let levels: [Double] = [0.0005, 0.002, 0.008, 0.032, 0.128, 0.512, 2.048]

  let configuration: LocationEngine.Configuration
  private(set) var slots: [Entry?] = []
  private var free: [Int] = []
  private var byIdentifier: [String: Int] = [:]
  private var grid: [Cell: [Int]] = [:]
  /// Slots to evaluate on every fix whatever the cell: inside, unknown, or pending.
  private var active: Set<Int> = []
  /// The cells of the latest fix and the regions in them (see ``update(_:at:)``); emptied
  /// whenever a region comes or goes.
  private var nearbyCells: [Cell] = []
  private var nearby: [Int] = []
  /// Regions per grid level: a fix looks only at the levels that hold any.
  private var regionsPerLevel = [Int](repeating: 0, count: RegionMonitor.levels.count)

  init(configuration: LocationEngine.Configuration) {
    self.configuration = configuration
  }

  var isEmpty: Bool { byIdentifier.isEmpty }
  var regions: Set<Region> { Set(byIdentifier.values.compactMap { slots[$0]?.region }) }

  /// Starts monitoring `region` (replacing one with the same identifier) and determines its
  /// state from `latest`, if there is one, or takes the state `assumed` (inside or outside:
  /// known beforehand, so a change from it needs the dwell).
  mutating func add(_ region: Region, latest: Location?, assuming assumed: RegionState = .unknown) -> [LocationManager.Action] {
    if let problem = problem(with: region) {
      return [.monitoringDidFail(region: region, error: problem)]
    }
    remove(region.identifier)
    guard byIdentifier.count < configuration.maximumRegionCount else {
      return [
        .monitoringDidFail(
          region: region,
          error: .init(
            .regionMonitoringDenied, "Already monitoring \(configuration.maximumRegionCount) regions; stop monitoring some first."))
      ]
    }
    let slot =
      free.popLast()
      ?? {
        slots.append(nil); return slots.count - 1
      }()
    var entry = Entry(region: region)
    entry.cells = Self.cells(for: region)
    for cell in entry.cells { grid[cell, default: []].append(slot) }
    nearbyCells = []
    if let level = entry.cells.first?.level { regionsPerLevel[Int(level)] += 1 }
    if assumed != .unknown {
      entry.state = assumed
      entry.assumed = true
    } else if let latest {
      entry.state = region.contains(latest.coordinate) ? .inside : .outside
    }
    slots[slot] = entry
    byIdentifier[region.identifier] = slot
    updateActivity(slot)
    return [.didStartMonitoring(region: region), .didDetermineState(entry.state, region: region)]
  }

  mutating func remove(_ identifier: String) {
    guard let slot = byIdentifier.removeValue(forKey: identifier), let entry = slots[slot] else { return }
    for cell in entry.cells {
      grid[cell]?.removeAll { $0 == slot }
      if grid[cell]?.isEmpty == true { grid[cell] = nil }
    }
    if let level = entry.cells.first?.level { regionsPerLevel[Int(level)] -= 1 }
    nearbyCells = []
    slots[slot] = nil
    active.remove(slot)
    free.append(slot)
  }

  /// The region's current state, for `requestState(for:)`.
  func stateAction(for region: Region) -> LocationManager.Action {
    guard let slot = byIdentifier[region.identifier], let entry = slots[slot] else {
      return .monitoringDidFail(
        region: region,
        error: .init(.regionMonitoringFailure, "Region '\(region.identifier)' is not monitored; call startMonitoring(for:) first."))
    }
    return .didDetermineState(entry.state, region: entry.region)
  }

  /// Judges `estimate` (for the fix at `time`) against the regions near it; with no estimate
  /// (a receiver just stopped) nothing is decided.
  mutating func update(_ estimate: PositionEstimate?, at time: Date) -> [LocationManager.Action] {
    guard let estimate else { return [] }
    let location = Location(coordinate: estimate.coordinate, horizontalAccuracy: estimate.sigma, speed: estimate.speed, timestamp: time)
    // The regions of the fix's cells, looked up only when it has moved to other cells (a car
    // stays in a cell for many fixes): the grid is large when many regions are monitored.
    var cells: [Cell] = []
    for (level, size) in Self.levels.enumerated() where regionsPerLevel[level] > 0 {
      cells.append(Self.cell(level: level, size: size, latitude: location.coordinate.latitude, longitude: location.coordinate.longitude))
    }
    if cells != nearbyCells {
      nearbyCells = cells
      nearby = cells.flatMap { grid[$0] ?? [] }
    }
    var candidates = active
    candidates.formUnion(nearby)
    var actions: [LocationManager.Action] = []
    // Slot order keeps the actions of one fix in a stable order.
    for slot in candidates.sorted() {
      evaluate(slot, location, confidence: estimate.confidence, into: &actions)
      updateActivity(slot)
    }
    // All regions start active (undecided) and most leave at the first fix: a set keeps its
    // capacity, and walking a sparse one costs as much as walking a full one.
    if active.capacity > 64, active.count * 8 < active.capacity {
      var shrunk = Set<Int>(minimumCapacity: active.count)
      for slot in active { shrunk.insert(slot) }
      active = shrunk
    }
    return actions
  }

  /// `location` is the estimate, its `horizontalAccuracy` the estimate's σ.
  private mutating func evaluate(
    _ slot: Int, _ location: Location, confidence: Double, into actions: inout [LocationManager.Action]
  ) {
    guard var entry = slots[slot] else { return }
    defer { slots[slot] = entry }
    let region = entry.region
    // Metres beyond the edge (negative inside): a circle's or a polygon's.
    let distance = region.signedDistance(to: location.coordinate)
    let margin = max(configuration.regionMinimumMargin, min(confidence * location.horizontalAccuracy, region.marginLimit))
    let evidence: RegionState? = distance <= -margin ? .inside : distance >= margin ? .outside : nil
    guard entry.state != .unknown else {
      guard let evidence else { return }
      entry.state = evidence
      actions.append(.didDetermineState(evidence, region: region))
      return
    }
    guard let evidence, evidence != entry.state else {
      // Evidence for the current state, or none at all, interrupts a pending transition.
      entry.candidate = nil
      entry.candidateSince = nil
      if evidence == entry.state { entry.assumed = false }
      return
    }
    if entry.candidate != evidence {
      entry.candidate = evidence
      entry.candidateSince = location.timestamp
    }
    let dwell =
      entry.assumed
      ? configuration.regionDwellFromKnownState
      : location.decisiveSpeed >= configuration.regionFastSpeed ? configuration.regionDwellWhileMoving : configuration.regionDwell
    guard let since = entry.candidateSince, location.timestamp.timeIntervalSince(since) >= dwell else { return }
    entry.assumed = false
    entry.state = evidence
    entry.candidate = nil
    entry.candidateSince = nil
    if evidence == .inside, region.notifyOnEntry { actions.append(.didEnterRegion(region)) }
    if evidence == .outside, region.notifyOnExit { actions.append(.didExitRegion(region)) }
    actions.append(.didDetermineState(evidence, region: region))
  }

  private mutating func updateActivity(_ slot: Int) {
    guard let entry = slots[slot] else { return }
    if entry.state != .outside || entry.candidate != nil { active.insert(slot) } else { active.remove(slot) }
  }

  private func problem(with region: Region) -> LocationManager.Error? {
    region.problem(maximumRadius: configuration.maximumRegionRadius).map {
      .init(.regionMonitoringFailure, "Region '\(region.identifier)' cannot be monitored: \($0).")
    }
  }

  static func cell(level: Int, size: Double, latitude: Double, longitude: Double) -> Cell {
    Cell(level: Int8(level), x: Int32((longitude / size).rounded(.down)), y: Int32((latitude / size).rounded(.down)))
  }

  /// The cells of the level where the region's bounding box spans at most two cells a side.
  static func cells(for region: Region) -> [Cell] {
    let latitudeSpan = region.radius / 111_195
    let latitudeCosine = max(0.01, cosine(region.center.latitude * .pi / 180))
    let longitudeSpan = latitudeSpan / latitudeCosine
    let diameter = 2 * max(latitudeSpan, longitudeSpan)
    let level = levels.firstIndex { $0 >= diameter } ?? levels.count - 1
    let size = levels[level]
    let low = cell(
      level: level, size: size, latitude: region.center.latitude - latitudeSpan, longitude: region.center.longitude - longitudeSpan)
    let high = cell(
      level: level, size: size, latitude: region.center.latitude + latitudeSpan, longitude: region.center.longitude + longitudeSpan)
    var cells: [Cell] = []
    for x in low.x...high.x {
      for y in low.y...high.y { cells.append(Cell(level: Int8(level), x: x, y: y)) }
    }
    return cells
  }
}
