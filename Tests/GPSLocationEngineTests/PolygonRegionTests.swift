import Foundation
import Testing

@testable import GPSLocationEngine

/// A polygon region's geometry: its signed distance to the edge (negative inside) on the
/// tangent plane, and the most margin a judgement at its edge may use.
struct PolygonRegionTests {
  static let origin = LocationCoordinate2D(latitude: 47, longitude: 8)
  static let metresPerDegree = 6_371_008.8 * Double.pi / 180

  /// The coordinate `east` and `north` metres from the origin.
  static func at(_ east: Double, _ north: Double) -> LocationCoordinate2D {
    LocationCoordinate2D(
      latitude: origin.latitude + north / metresPerDegree,
      longitude: origin.longitude + east / (metresPerDegree * cos(origin.latitude * .pi / 180)))
  }

  @Test func aSquaresDistancesAreToItsNearestEdge() {
    let square = Region(identifier: "square", polygon: [Self.at(0, 0), Self.at(200, 0), Self.at(200, 200), Self.at(0, 200)])
    #expect(abs(square.signedDistance(to: Self.at(100, 10)) + 10) < 0.1)
    #expect(abs(square.signedDistance(to: Self.at(100, -30)) - 30) < 0.1)
    #expect(abs(square.signedDistance(to: Self.at(230, 240)) - 50) < 0.2)  // to the corner
    #expect(square.contains(Self.at(199, 199)) && !square.contains(Self.at(201, 100)))
    // The largest circle inside has a radius of 100 m: the margin is at most about half that.
    #expect((45...50).contains(square.marginLimit), "\(square.marginLimit)")
    // The circle the grid files it by holds every corner.
    #expect(square.radius >= square.center.distance(to: Self.at(0, 0)))
  }

  /// An L whose corners average to a point outside it still allows a margin of its arms' size
  /// (from the centre of its corners it would be the 1 m floor, and a noisy receiver would
  /// flap at its edge).
  @Test func aConcavePolygonsMarginComesFromWhereItIsWidest() {
    let corners = [(0.0, 0.0), (300, 0), (300, 100), (100, 100), (100, 300), (0, 300)].map { Self.at($0.0, $0.1) }
    let ell = Region(identifier: "ell", polygon: corners)
    #expect(!ell.contains(ell.center))  // the average of the corners is outside the L
    #expect(ell.marginLimit >= 25, "\(ell.marginLimit)")
    #expect(ell.contains(Self.at(50, 250)) && !ell.contains(Self.at(200, 200)))
  }

  @Test func aPolygonOfTwoCornersOrAcrossTheMeridianIsRefused() {
    #expect(Region(identifier: "line", polygon: [Self.at(0, 0), Self.at(10, 0)]).problem() != nil)
    let across = Region(
      identifier: "across",
      polygon: [
        LocationCoordinate2D(latitude: 0, longitude: 179.9), LocationCoordinate2D(latitude: 0, longitude: -179.9),
        LocationCoordinate2D(latitude: 1, longitude: -179.9),
      ])
    #expect(across.problem().map { "\($0)" }?.contains("±180°") == true)
  }
}
