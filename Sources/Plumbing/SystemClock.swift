/// The system's calendar clock (`CLOCK_REALTIME`), read in this one place. Transports' `WallClock`
/// makes it a timestamp for the few things that must say the machine's date; the simulator's
/// live receiver paces its epochs by it. No fix is ever dated from it.
package enum SystemClock {
  /// Nanoseconds since 1970 now.
  package static var realtimeNanoseconds: Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}
