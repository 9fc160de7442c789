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
        return .devices(GPSDReport.Devices(devices: Array(repeating: GPSDReport.Device(), count: Int(gpsbridge_device_count(data)))))
      }
      if isClass("ERROR") {
        return .error(GPSDReport.GPSDError(message: String(cString: gpsbridge_error_message(data))))
      }
      return nil
    }

    private func tpv() -> GPSDReport.TPV {
      let values = gpsbridge_tpv_of(data)
      var tpv = GPSDReport.TPV()
      tpv.mode = GPSDReport.TPV.Mode(rawValue: Int(values.mode))
      if values.seconds != 0 {
        tpv.time = UTCTimestamp(nanosecondsSince1970: Int64(values.seconds) * 1_000_000_000 + Int64(values.nanoseconds)).description
      }
      tpv.latitude = known(values.latitude)
      tpv.longitude = known(values.longitude)
      tpv.ellipsoidalAltitude = known(values.altHAE)
      tpv.altitudeMSL = known(values.altMSL)
      tpv.geoidSeparation = known(values.geoidSeparation)
      tpv.speed = known(values.speed)
      tpv.course = known(values.track)
      tpv.climb = known(values.climb)
      tpv.magneticVariation = known(values.magneticVariation)
      tpv.horizontalError = known(values.eph)
      tpv.longitudeError = known(values.epx)
      tpv.latitudeError = known(values.epy)
      tpv.verticalError = known(values.epv)
      return tpv
    }

    private func sky() -> GPSDReport.SKY {
      var sky = GPSDReport.SKY()
      sky.horizontalDOP = known(gpsbridge_hdop(data))
      sky.verticalDOP = known(gpsbridge_vdop(data))
      sky.positionDOP = known(gpsbridge_pdop(data))
      let visible = Int(gpsbridge_satellites_visible(data))
      sky.visibleCount = visible
      sky.usedCount = Int(gpsbridge_satellites_used(data))
      sky.satellites = (0..<max(0, visible)).map { index in
        let values = gpsbridge_satellite_at(data, CInt(index))
        var satellite = GPSDReport.SKY.Satellite()
        satellite.prn = Int(values.prn)
        satellite.elevation = known(values.elevation)
        satellite.azimuth = known(values.azimuth)
        satellite.signalStrength = values.ss >= 0 ? known(values.ss) : nil
        satellite.used = values.used
        satellite.gnssID = Int(values.gnssid)
        satellite.svID = Int(values.svid)
        return satellite
      }
      return sky
    }

    /// libgps's "not sent" is NaN.
    private func known(_ value: Double) -> Double? { value.isFinite ? value : nil }
  }
#endif
