import GPSD
import Plumbing

// The live managers: a serial receiver and gpsd. Each is a `LocationManager.source(…)` over
// its transport, so they share one engine and one actor (ManagerCore).

extension LocationManager {
  /// A GPS receiver on a serial device: `/dev/ttyUSB0`, `/dev/ttyACM0`,
  /// `/dev/serial/by-id/…` or a udev link such as `/dev/gps0`.
  ///
  /// The baud rate is found automatically unless given. When the receiver is unplugged the
  /// delegate gets `didPauseLocationUpdates` and an error saying so; when it comes back (at
  /// the same path), `didResumeLocationUpdates` and fixes again. Opening fails with an error
  /// that names the fix: permission denied (the `dialout` group), busy (another program holds
  /// it), not a serial device.
  public static func serial(
    path: String, baudRate: BaudRate = .automatic, configuration: LocationEngine.Configuration = .init()
  ) -> LocationManager {
    serial(path: path, baudRate: baudRate, timing: .init(), configuration: configuration)
  }

  /// ``serial(path:baudRate:configuration:)`` with its timing exposed, for tests.
  package static func serial(
    path: String, baudRate: BaudRate = .automatic, timing: SerialSource.Timing, scheduler: Scheduler = .live,
    configuration: LocationEngine.Configuration = .init()
  ) -> LocationManager {
    .source(SerialSource(path: path, baudRate: baudRate, timing: timing, scheduler: scheduler), configuration: configuration)
  }

  /// A running gpsd (default 127.0.0.1:2947), optionally one of its devices.
  ///
  /// Its reports become the same fixes the serial path makes. While gpsd is not running, or
  /// after it stops, the manager says so and reconnects by itself; it never makes up a location.
  public static func gpsd(
    host: String = GPSDAddress.standard.host, port: Int = GPSDAddress.standard.port, device: String? = nil,
    configuration: LocationEngine.Configuration = .init()
  ) -> LocationManager {
    gpsd(host: host, port: port, device: device, timing: .init(), configuration: configuration)
  }

  /// ``gpsd(host:port:device:configuration:)`` with its timing and scheduler exposed, for tests.
  package static func gpsd(
    host: String = GPSDAddress.standard.host, port: Int = GPSDAddress.standard.port, device: String? = nil, timing: GPSDSource.Timing,
    scheduler: Scheduler = .live, configuration: LocationEngine.Configuration = .init()
  ) -> LocationManager {
    .source(GPSDSource(host: host, port: port, device: device, timing: timing, scheduler: scheduler), configuration: configuration)
  }

  #if libgps
    /// A running gpsd read through gpsd's own client library, the system libgps (built with
    /// the `libgps` trait and Debian's libgps-dev).
    ///
    /// Behaves as ``gpsd(host:port:device:configuration:)`` does, with the same fixes, errors,
    /// pauses and reconnection; only the parsing of gpsd's reports is libgps's. Its connect
    /// blocks for as long as the system's TCP connect does, where the JSON client gives up
    /// after 3 s: for a gpsd on another host, prefer ``gpsd(host:port:device:configuration:)``.
    public static func libgps(
      host: String = GPSDAddress.standard.host, port: Int = GPSDAddress.standard.port, device: String? = nil,
      configuration: LocationEngine.Configuration = .init()
    ) -> LocationManager {
      libgps(host: host, port: port, device: device, timing: .init(), configuration: configuration)
    }

    /// ``libgps(host:port:device:configuration:)`` with its timing and scheduler exposed, for tests.
    package static func libgps(
      host: String = GPSDAddress.standard.host, port: Int = GPSDAddress.standard.port, device: String? = nil, timing: GPSDSource.Timing,
      scheduler: Scheduler = .live, configuration: LocationEngine.Configuration = .init()
    ) -> LocationManager {
      .source(
        GPSDSource(host: host, port: port, device: device, timing: timing, throughLibGPS: true, scheduler: scheduler),
        configuration: configuration)
    }
  #endif
}
