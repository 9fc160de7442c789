import NMEA
import Plumbing

extension NTRIPClient {
  /// The correction stream as gpsd lists a DGPS source in `?DEVICES`: a `DEVICE` object whose
  /// path is the caster and mountpoint without credentials, `activated` while connected, and
  /// gpsd's RTCM 3 flag once frames came. Its health follows in attributes of gpsbridge's own,
  /// all scalars: libgps 3.22 skips unknown scalar attributes but fails a whole `DEVICES` on an
  /// unknown array or object, so message types are one string ("1005,1074").
  public var gpsdDevice: String {
    let health = self.health
    var writer = JSONWriter(capacity: 384)
    writer.beginObject()
    writer.field("class", "DEVICE")
    writer.field("path", configuration.address.description)
    writer.field("driver", "NTRIP")
    if health.connected, let since = connectedSince { writer.field("activated", since.description) }
    // gpsd's SEEN_RTCM3.
    writer.field("flags", health.forwarded + health.dropped > 0 ? 4 : 0)
    writer.field("connected", health.connected)
    writer.field("state", health.state)
    writer.field("bytes_per_second", (health.bytesPerSecond * 10).rounded() / 10)
    writer.field("forwarded", health.forwarded)
    writer.field("dropped", health.dropped)
    if let age = health.lastFrameAge { writer.field("last_frame_age", age, decimals: 1) }
    writer.field("messages", health.messageTypes.keys.sorted().map(String.init).joined(separator: ","))
    if let station = health.stationID { writer.field("station", station) }
    if let distance = health.stationDistance { writer.field("station_distance", distance.rounded()) }
    writer.field("gga_sent", health.ggaSent)
    writer.endObject()
    return writer.string
  }
}
