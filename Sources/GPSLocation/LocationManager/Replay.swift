import NMEASimulation

// The replay manager: a capture through the same pipeline and engine as a live receiver.

extension LocationManager {
  /// A manager that replays a capture through the same pipeline and engine as a live
  /// receiver, so a recorded drive yields the actions the device did. Authorization is
  /// `authorizedAlways`; the end of the capture is reported as one `didFailWithError` with
  /// code ``Error/Code/endOfCapture`` (not as a pause: nothing went away), after which the
  /// delegate streams finish, so `for await` over them ends by itself. Playing starts with
  /// the first command that needs a source: give your commands as one step with ``perform``
  /// (regions, heading, updates) and they all land before the first fix, so a replay gives the
  /// same actions every time.
  public static func replay(
    capture: Capture, speed: ReplaySpeed = .realTime, configuration: LocationEngine.Configuration = .init()
  ) -> LocationManager {
    replay(capture: capture, speed: speed, configuration: configuration, clock: ContinuousClock())
  }

  /// ``replay(capture:speed:configuration:)`` on a clock of your choosing (for tests).
  public static func replay<C: Clock>(
    capture: Capture, speed: ReplaySpeed = .realTime, configuration: LocationEngine.Configuration = .init(), clock: C
  ) -> LocationManager where C.Duration == Duration {
    .source(ReplaySource(capture: capture, speed: speed, clock: clock), configuration: configuration, clock: clock)
  }
}

extension LocationManager {
  /// A manager that needs no hardware: a simulated receiver (`Simulation/demoDrive` unless
  /// given) replayed through the same pipeline and engine as a live one.
  public static func simulated(
    _ simulation: Simulation = .demoDrive, speed: ReplaySpeed = .realTime,
    configuration: LocationEngine.Configuration = .init()
  ) -> LocationManager {
    replay(capture: .simulated(simulation), speed: speed, configuration: configuration)
  }
}

extension Region {
  /// A simulation's place as a region to monitor, notifying on entry and exit.
  public init(_ place: Place) {
    self.init(
      identifier: place.identifier, center: LocationCoordinate2D(latitude: place.latitude, longitude: place.longitude),
      radius: place.radius)
  }
}
