import Trigonometry

/// A region bounded by a polygon: its corners and what the monitor needs of them, worked out
/// once. The region's ``Region/center`` and ``Region/radius`` are then the circle around the
/// corners, which the grid index files it by.
///
/// Distances are measured on a plane tangent at the centre (metres east and north): within a
/// fraction of a percent for polygons up to tens of kilometres across, which is what a
/// geofence is. A polygon may not straddle the ±180° meridian.
package struct Polygon: Hashable, Sendable {
  package let vertices: [LocationCoordinate2D]
  /// The corners on the tangent plane, metres east and north of the centre.
  let points: [(x: Double, y: Double)]
  let center: LocationCoordinate2D
  /// Metres per degree of longitude at the centre, and of latitude.
  let metresPerDegree: (x: Double, y: Double)
  /// The most hysteresis margin a judgement may use: half the radius of the largest circle
  /// inside (a margin wider than the polygon would make it impossible to be inside).
  let marginLimit: Double

  package init(_ vertices: [LocationCoordinate2D]) {
    self.vertices = vertices
    let count = Double(max(vertices.count, 1))
    center = LocationCoordinate2D(
      latitude: vertices.reduce(0) { $0 + $1.latitude } / count, longitude: vertices.reduce(0) { $0 + $1.longitude } / count)
    let perDegree = earthRadius * .pi / 180
    metresPerDegree = (perDegree * cosine(center.latitude * .pi / 180), perDegree)
    let (center, scale) = (center, metresPerDegree)
    points = vertices.map { (($0.longitude - center.longitude) * scale.x, ($0.latitude - center.latitude) * scale.y) }
    marginLimit = Self.deepestInside(points) / 2
  }

  /// About the radius of the largest circle inside the polygon: the deepest of a 12 × 12 grid
  /// of points over its bounding box (the centre of the corners may lie outside a concave
  /// polygon, an L or a U). At least 1 m.
  private static func deepestInside(_ points: [(x: Double, y: Double)]) -> Double {
    guard let minimumX = points.map(\.x).min(), let maximumX = points.map(\.x).max(), let minimumY = points.map(\.y).min(),
      let maximumY = points.map(\.y).max()
    else { return 1 }
    var deepest = 1.0
    let steps = 12
    for i in 0..<steps {
      for j in 0..<steps {
        let x = minimumX + (maximumX - minimumX) * (Double(i) + 0.5) / Double(steps)
        let y = minimumY + (maximumY - minimumY) * (Double(j) + 0.5) / Double(steps)
        deepest = max(deepest, -signedDistance(from: (x, y), to: points))
      }
    }
    return deepest
  }

  /// Metres from `coordinate` to the nearest edge: negative inside, positive outside.
  func signedDistance(to coordinate: LocationCoordinate2D) -> Double {
    Self.signedDistance(
      from: ((coordinate.longitude - center.longitude) * metresPerDegree.x, (coordinate.latitude - center.latitude) * metresPerDegree.y),
      to: points)
  }

  private static func signedDistance(from point: (x: Double, y: Double), to points: [(x: Double, y: Double)]) -> Double {
    guard points.count >= 3 else { return .infinity }
    var nearest = Double.infinity
    var inside = false
    var previous = points[points.count - 1]
    for current in points {
      // Crossings of a ray to the east decide inside (even-odd); the nearest edge, the distance.
      if (current.y > point.y) != (previous.y > point.y),
        point.x < (previous.x - current.x) * (point.y - current.y) / (previous.y - current.y) + current.x
      {
        inside.toggle()
      }
      let edge = (x: previous.x - current.x, y: previous.y - current.y)
      let length = edge.x * edge.x + edge.y * edge.y
      let along = length > 0 ? min(1, max(0, ((point.x - current.x) * edge.x + (point.y - current.y) * edge.y) / length)) : 0
      let dx = point.x - (current.x + along * edge.x)
      let dy = point.y - (current.y + along * edge.y)
      nearest = min(nearest, (dx * dx + dy * dy).squareRoot())
      previous = current
    }
    return inside ? -nearest : nearest
  }

  package static func == (a: Polygon, b: Polygon) -> Bool { a.vertices == b.vertices }
  package func hash(into hasher: inout Hasher) { hasher.combine(vertices) }
}

extension Region {
  /// A region bounded by `vertices` (at least three, in order, either way round), filed by
  /// the circle around them.
  package init(identifier: String, polygon vertices: [LocationCoordinate2D], notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
    let polygon = Polygon(vertices)
    let radius = vertices.map { polygon.center.distance(to: $0) }.max() ?? 0
    self.init(identifier: identifier, center: polygon.center, radius: radius, notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit)
    self.polygon = polygon
  }

  /// Metres from `coordinate` to the region's edge: negative inside, positive outside.
  package func signedDistance(to coordinate: LocationCoordinate2D) -> Double {
    polygon?.signedDistance(to: coordinate) ?? center.distance(to: coordinate) - radius
  }

  /// The most hysteresis margin a judgement at the edge may use: half the radius of a circle,
  /// half the radius of the largest circle inside a polygon.
  package var marginLimit: Double { polygon?.marginLimit ?? radius / 2 }
}
