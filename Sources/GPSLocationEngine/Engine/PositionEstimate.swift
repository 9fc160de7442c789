import FoundationEssentials
import Trigonometry

/// Where the receiver is, as far as region edges are concerned, and how uncertain that is.
struct PositionEstimate: Sendable {
  var coordinate: LocationCoordinate2D
  /// 1σ error per axis, metres.
  var sigma: Double
  /// How many standard deviations an edge's margin must span for this estimate: 2 for a
  /// single fix, 3 for a mean of a few fixes (whose σ is itself an estimate from few samples).
  var confidence: Double
  /// Metres per second, as reported; 0 for a mean of still fixes.
  var speed: Double = 0
}

/// The receiver's position noise, learned from its own fixes rather than taken on trust.
///
/// Receivers state their accuracy (HDOP × a range error, or their own estimate), and many
/// understate it: parked, their fixes wander by several times the figure. So while the
/// receiver is still (it reports under ``slowSpeed``), its recent fixes (the last
/// ``windowSeconds``) are a sample of its noise: their scatter around their mean estimates the
/// noise, and their mean estimates where it is, √n times better than one fix. The scatter
/// learned last is kept while moving, so a receiver known to be noisy stays known as noisy.
///
/// ``add(_:)`` gives what a region decision should use:
/// - moving (or speed unknown): the fix, with σ the larger of the stated accuracy and the
///   learned scatter;
/// - still, with at least ``minimumSamples`` fixes: their mean, with σ / √n;
/// - still, with fewer: nothing yet, so a few noisy fixes of a receiver that has just stopped,
///   or just started, decide nothing.
struct NoiseEstimate: Sendable {
  /// Below this reported speed (m/s) the receiver is taken to be still: walking pace is
  /// above it, a parked receiver's reported speed is well below.
  static let slowSpeed = 1.0
  /// How far back (seconds of fix time) the still fixes are kept.
  static let windowSeconds: TimeInterval = 30
  /// Fewest still fixes whose mean and scatter are used.
  static let minimumSamples = 5
  /// Most still fixes kept (at 10 Hz the window is then 6 s), so the cost per fix stays small.
  static let maximumSamples = 60
  /// A still fix this far (metres) from the others' mean means the receiver moved after all
  /// (a jump after a tunnel, a receiver that reports no speed while moving): start again.
  static let jump = 200.0

  private var origin: LocationCoordinate2D?
  private var samples: [(north: Double, east: Double, time: Date)] = []
  /// The last scatter learned (1σ per axis, metres), kept while moving.
  private(set) var scatter: Double?

  mutating func add(_ location: Location) -> PositionEstimate? {
    let stated = max(0, location.horizontalAccuracy)
    let speed = location.decisiveSpeed
    guard speed >= 0, speed < Self.slowSpeed else {
      samples.removeAll(keepingCapacity: true)
      origin = nil
      return PositionEstimate(coordinate: location.coordinate, sigma: max(stated, scatter ?? 0), confidence: 2, speed: max(0, speed))
    }
    let origin = self.origin ?? location.coordinate
    self.origin = origin
    let metresPerDegree = 111_195.0
    let east = (location.coordinate.longitude - origin.longitude) * metresPerDegree * cosine(origin.latitude * .pi / 180)
    let north = (location.coordinate.latitude - origin.latitude) * metresPerDegree
    if let mean = mean, ((north - mean.north) * (north - mean.north) + (east - mean.east) * (east - mean.east)).squareRoot() > Self.jump {
      samples.removeAll(keepingCapacity: true)
      self.origin = nil
      return add(location)
    }
    samples.append((north, east, location.timestamp))
    samples.removeAll { location.timestamp.timeIntervalSince($0.time) > Self.windowSeconds }
    if samples.count > Self.maximumSamples { samples.removeFirst(samples.count - Self.maximumSamples) }
    guard samples.count >= Self.minimumSamples, let mean else { return nil }
    let count = Double(samples.count)
    let squares = samples.reduce(0.0) { sum, sample in
      sum + (sample.north - mean.north) * (sample.north - mean.north) + (sample.east - mean.east) * (sample.east - mean.east)
    }
    // Per axis, with Bessel's correction: the mean was estimated from the same fixes.
    let learned = (squares / (count - 1) / 2).squareRoot()
    scatter = learned
    let coordinate = LocationCoordinate2D(
      latitude: origin.latitude + mean.north / metresPerDegree,
      longitude: origin.longitude + mean.east / (metresPerDegree * cosine(origin.latitude * .pi / 180)))
    return PositionEstimate(coordinate: coordinate, sigma: max(stated, learned) / count.squareRoot(), confidence: 3)
  }

  private var mean: (north: Double, east: Double)? {
    guard !samples.isEmpty else { return nil }
    let count = Double(samples.count)
    return (samples.reduce(0) { $0 + $1.north } / count, samples.reduce(0) { $0 + $1.east } / count)
  }
}
