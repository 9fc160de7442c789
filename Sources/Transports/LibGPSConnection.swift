import SourceStatus

#if libgps
  import CLibGPS
  import GPSD
  import NMEA
  import Plumbing

  /// A connection to gpsd through gpsd's own client library (the `libgps` trait): libgps
  /// connects, sends the WATCH and parses each report into its `gps_data_t`, and this turns
  /// that into the same ``GPSDReport`` values the JSON path reads, so both paths share the
  /// fix assembly, the checks and the reconnection of ``GPSDSource``.
  ///
  /// libgps's socket is read when a Dispatch source says bytes are waiting; `gps_read` then
  /// takes one message, and `gps_waiting` says whether another is already buffered. Only
  /// `CLibGPS`'s shim header touches libgps's structs, whose layout changes between releases.
  final class LibGPSConnection: @unchecked Sendable {
    private let data: UnsafeMutablePointer<gps_data_t>
    /// The message `gps_read` just parsed: its class is in the text, not in `gps_data_t`.
    private var message = [CChar](repeating: 0, count: 10_240)

    /// Connects (a blocking connect, as libgps does it) or says why not.
    static func open(host: String, port: Int) throws(SourceError) -> LibGPSConnection {
      let address = GPSDAddress(host: host, port: port).description
      var failure: CInt = 0
      guard let data = gpsbridge_open(host, String(port), &failure) else {
        switch failure {
        case CInt(NL_NOHOST), CInt(NL_NOSERVICE): throw .hostNotFound(host: host)
        case CInt(NL_NOCONNECT): throw .gpsdNotRunning(address: address)
        default: throw .gpsdUnreachable(address: address, description: String(cString: gpsbridge_describe(failure)))
        }
      }
      return LibGPSConnection(data: data)
    }

    private init(data: UnsafeMutablePointer<gps_data_t>) {
      self.data = data
    }

    var descriptor: FileDescriptor { FileDescriptor(rawValue: gpsbridge_descriptor(data)) }

    /// Asks for JSON reports, from `device` only if given.
    func watch(device: String?) -> Bool {
      (device.map { gpsbridge_watch(data, $0) } ?? gpsbridge_watch(data, nil)) == 0
    }

    /// Reads every message waiting, giving each report.
    func readReports(_ take: (GPSDReport) -> Void) -> DescriptorReader.Drained {
      repeat {
        guard gpsbridge_read(data, &message, CInt(message.count)) >= 0 else { return .closed(nil) }
        if let report = report() { take(report) }
      } while gpsbridge_waiting(data)
      return .wouldBlock
    }

    func close() {
      gpsbridge_close(data)
    }

    private func isClass(_ name: String) -> Bool {
      let prefix = Array("{\"class\":\"\(name)\"".utf8)
      return message.count >= prefix.count && zip(message, prefix).allSatisfy { UInt8(bitPattern: $0) == $1 }
    }

    private func report() -> GPSDReport? {
      if isClass("TPV") { return .tpv(tpv()) }
      if isClass("SKY") { return .sky(sky()) }
      if isClass("DEVICES") {
        var devices = GPSDReport.Devices()
        devices.devices = Array(repeating: GPSDReport.Device(), count: Int(gpsbridge_device_count(data)))
        return .devices(devices)
      }
      if isClass("ERROR") {
        var error = GPSDReport.GPSDError()
        error.message = String(cString: gpsbridge_error_message(data))
        return .error(error)
      }
      return nil
    }

    private func tpv() -> GPSDReport.TPV {
      let values = gpsbridge_tpv_of(data)
      var tpv = GPSDReport.TPV()
      tpv.mode = Int(values.mode)
      if values.seconds != 0 {
        tpv.time = UTCTimestamp(nanosecondsSince1970: Int64(values.seconds) * 1_000_000_000 + Int64(values.nanoseconds)).description
      }
      tpv.lat = known(values.latitude)
      tpv.lon = known(values.longitude)
      tpv.altHAE = known(values.altHAE)
      tpv.altMSL = known(values.altMSL)
      tpv.geoidSep = known(values.geoidSeparation)
      tpv.speed = known(values.speed)
      tpv.track = known(values.track)
      tpv.climb = known(values.climb)
      tpv.magvar = known(values.magneticVariation)
      tpv.eph = known(values.eph)
      tpv.epx = known(values.epx)
      tpv.epy = known(values.epy)
      tpv.epv = known(values.epv)
      return tpv
    }

    private func sky() -> GPSDReport.SKY {
      var sky = GPSDReport.SKY()
      sky.hdop = known(gpsbridge_hdop(data))
      sky.vdop = known(gpsbridge_vdop(data))
      sky.pdop = known(gpsbridge_pdop(data))
      let visible = Int(gpsbridge_satellites_visible(data))
      sky.nSat = visible
      sky.uSat = Int(gpsbridge_satellites_used(data))
      sky.satellites = (0..<max(0, visible)).map { index in
        let values = gpsbridge_satellite_at(data, CInt(index))
        var satellite = GPSDReport.SKY.Satellite()
        satellite.PRN = Int(values.prn)
        satellite.el = known(values.elevation)
        satellite.az = known(values.azimuth)
        satellite.ss = values.ss >= 0 ? known(values.ss) : nil
        satellite.used = values.used
        satellite.gnssid = Int(values.gnssid)
        satellite.svid = Int(values.svid)
        return satellite
      }
      return sky
    }

    /// libgps's "not sent" is NaN.
    private func known(_ value: Double) -> Double? { value.isFinite ? value : nil }
  }
#endif
