import Plumbing

/// What a `?DEVICE={…}` object asks, read as JSON (so `"b\u0070s"` is `bps`, as gpsd reads
/// it): which device, and whether it asks to change the device's settings, which a read-only
/// server refuses.
package struct GPSDDeviceRequest: Decodable, Sendable, Equatable {
  /// The device named (`"path"`), if any.
  package var path: String?
  /// Whether the object sets anything of the device's (speed, framing, mode, cycle, bytes
  /// to send).
  package var changesSettings: Bool

  private enum Key: String, CodingKey, CaseIterable {
    case path, bps, parity, stopbits, native, cycle, mincycle, hexdata, readonly, flags
  }

  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Key.self)
    path = try? container.decodeIfPresent(String.self, forKey: .path)
    changesSettings = Key.allCases.contains { $0 != .path && container.contains($0) }
  }

  /// Reads a `?DEVICE=` object's text; `nil` when it is no JSON object.
  package init?(json text: String) {
    guard let request = try? JSONValueDecoder.decode(Self.self, from: text.utf8) else { return nil }
    self = request
  }
}
