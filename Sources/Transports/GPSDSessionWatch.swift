import GPSD
import SourceStatus

/// What one connection to gpsd is worth, as a pure state machine: reports and the times of
/// the reader's ticks in, what to say and whether the connection is stale out. It never reads
/// a clock; the reader runs it on its queue, so its statuses reach the listeners in order with
/// the fixes.
///
/// - **Silence**: with a device active, no report for `silenceTimeout` means the connection is
///   stale: it ends, and the source connects again.
/// - **No device or no fix**: after `noFixTimeout` without a position, one error that says
///   which (not when watching NMEA, which makes no fixes); a device that comes after "no
///   device" was said gets its own `noFixTimeout` before "no fix" is.
/// - gpsd's own `ERROR` reports are said as they come.
struct GPSDSessionWatch: Sendable {
  struct Timing: Hashable, Sendable {
    var silenceTimeout: Duration
    var noFixTimeout: Duration
  }

  let address: String
  let timing: Timing
  let watchesNMEA: Bool
  private var lastReport: ContinuousClock.Instant
  private var hasDevice = false
  private var hadPosition = false
  private var noFixReported = false
  /// "No device" was said; a device that comes later gets its own time to find a fix.
  private var noDeviceReported = false
  private var noFixSince: ContinuousClock.Instant
  /// Whether a fix came through this connection.
  private(set) var hadFix = false

  init(address: String, timing: Timing, watchesNMEA: Bool, now: ContinuousClock.Instant) {
    self.address = address
    self.timing = timing
    self.watchesNMEA = watchesNMEA
    lastReport = now
    noFixSince = now
  }

  /// A fix made from gpsd's reports.
  mutating func fix(hasPosition: Bool, now: ContinuousClock.Instant) {
    lastReport = now
    hadFix = true
    if hasPosition { hadPosition = true }
  }

  /// Any other report (or, watching NMEA, a line); an error to say, if gpsd sent one.
  mutating func report(_ report: GPSDReport, now: ContinuousClock.Instant) -> SourceError? {
    lastReport = now
    switch report {
    case .devices(let list):
      hasDevice = !(list.devices ?? []).isEmpty
    case .device(let device):
      if device.activated != nil, !device.isGone { hasDevice = true }
    case .tpv, .sky, .gst, .att:
      hasDevice = true
    case .error(let error):
      return .gpsdError(address: address, message: error.message ?? "error")
    default:
      break
    }
    return nil
  }

  /// What a tick at `now` finds: a reason the connection is stale, or a problem to say.
  mutating func tick(now: ContinuousClock.Instant) -> (stale: String?, say: SourceError?) {
    if hasDevice, lastReport.duration(to: now) >= timing.silenceTimeout {
      return ("no report for \(timing.silenceTimeout)", nil)
    }
    if noDeviceReported, hasDevice {
      noDeviceReported = false
      noFixReported = false
      noFixSince = now
    }
    guard !hadPosition, !noFixReported, noFixSince.duration(to: now) >= timing.noFixTimeout, !watchesNMEA else { return (nil, nil) }
    noFixReported = true
    noDeviceReported = !hasDevice
    let seconds = Int(timing.noFixTimeout.components.seconds)
    return (nil, hasDevice ? .gpsdHasNoFix(address: address, seconds: seconds) : .gpsdHasNoDevice(address: address))
  }
}
