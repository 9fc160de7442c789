// The live managers: a serial receiver and gpsd. Each is a `LocationManager.source(…)` over
// its transport, so they share one engine and one actor (ManagerCore).

extension LocationManager {
  /// A GPS receiver on a serial device: `/dev/ttyUSB0`, `/dev/ttyACM0`,
  /// `/dev/serial/by-id/…` or a udev link such as `/dev/gps0`. See ``SerialSource`` for
  /// autobaud, unplug and replug, and the errors it reports.
  public static func serial(
    path: String, baudRate: BaudRate = .automatic, timing: SerialSource.Timing = .init(),
    configuration: LocationEngine.Configuration = .init(), onNotice: @escaping @Sendable (String) -> Void = { _ in }
  ) -> LocationManager {
    .source(SerialSource(path: path, baudRate: baudRate, timing: timing, onNotice: onNotice), configuration: configuration)
  }
}

extension LocationManager {
  /// A running gpsd (default 127.0.0.1:2947), optionally one of its devices. See
  /// ``GPSDSource`` for reconnection and the errors it reports.
  public static func gpsd(
    host: String = "127.0.0.1", port: Int = 2947, device: String? = nil, timing: GPSDSource.Timing = .init(),
    configuration: LocationEngine.Configuration = .init()
  ) -> LocationManager {
    .source(GPSDSource(host: host, port: port, device: device, timing: timing), configuration: configuration)
  }
}
