import NMEA
import Plumbing

/// The system's calendar clock (`CLOCK_REALTIME`, through Plumbing's `SystemClock`) as a timestamp: everything
/// that decides where you are runs on the receiver's own times and an injected monotonic
/// clock; only what must say the date of the machine asks this (a recording's `# Date:`, a
/// served device's activation time, a `?POLL`'s time, and a time sample's arrival). No fix is
/// ever dated from it.
package enum WallClock {
  /// Now, to the nanosecond.
  package static var now: UTCTimestamp { UTCTimestamp(nanosecondsSince1970: SystemClock.realtimeNanoseconds) }

  /// The machine's own oscillator since boot (`CLOCK_MONOTONIC_RAW`): never stepped, and never
  /// slewed either, so no time service (chrony slews the other clocks by up to 83 ms a second
  /// while it corrects) can move it. A time sample's arrival is stamped with it too, so that a
  /// receiver whose time steps or drifts is told from a system clock that was set.
  package static var uptime: Duration {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC_RAW, &time)
    return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
  }

  /// Today's date in UTC: for a recording's `# Date:` line only, never for a fix.
  package static var today: UTCDate { now.date }
}
