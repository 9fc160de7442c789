import CClockState

/// What the kernel says of the system clock.
public enum SystemClockState {
  /// Whether a time service holds the system clock synchronised (the kernel's adjtimex state
  /// is not `TIME_ERROR`). A box that booted with a stale or no RTC and has no other source
  /// says no until its first synchronisation: then a receiver's time is the best there is.
  /// Asked read only; `false` when the kernel cannot be asked.
  public static var isSynchronised: Bool { gpsbridge_system_clock_is_synchronised() == 1 }
}
