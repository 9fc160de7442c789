/// One stretch of a simulated journey: how long it lasts, how fast it moves, how it turns, and
/// whether the receiver sees the sky.
public struct Leg: Hashable, Sendable {
  /// Seconds the leg lasts.
  public var seconds: Double
  /// Metres per second over ground.
  public var speed: Double
  /// Degrees per second, clockwise positive.
  public var turnRate: Double
  /// Metres: a hover circles slowly on a circle of this radius instead of travelling.
  public var hoverRadius: Double
  /// False for a stretch without a fix (a tunnel, a covered car park).
  public var hasFix: Bool

  public init(seconds: Double, speed: Double = 0, turnRate: Double = 0, hoverRadius: Double = 0, hasFix: Bool = true) {
    self.seconds = seconds
    self.speed = speed
    self.turnRate = turnRate
    self.hoverRadius = hoverRadius
    self.hasFix = hasFix
  }

  /// Straight ahead at `speed` m/s.
  public static func drive(_ seconds: Double, speed: Double) -> Leg {
    Leg(seconds: seconds, speed: speed)
  }

  /// Turning at `degreesPerSecond` (clockwise positive) while moving at `speed` m/s.
  public static func turn(_ seconds: Double, speed: Double, degreesPerSecond: Double) -> Leg {
    Leg(seconds: seconds, speed: speed, turnRate: degreesPerSecond)
  }

  /// Standing still.
  public static func stop(_ seconds: Double) -> Leg {
    Leg(seconds: seconds)
  }

  /// Staying near one place the way a drone or a boat at anchor does: circling slowly on a
  /// circle of `radius` metres, about once a minute.
  public static func hover(_ seconds: Double, radius: Double) -> Leg {
    Leg(seconds: seconds, hoverRadius: radius)
  }

  /// Moving at `speed` m/s without a fix: the receiver has lost the sky.
  public static func tunnel(_ seconds: Double, speed: Double) -> Leg {
    Leg(seconds: seconds, speed: speed, hasFix: false)
  }
}
