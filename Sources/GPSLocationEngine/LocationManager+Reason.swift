import SourceStatus

extension LocationManager.Error {
  /// What went wrong with a source: the transports' own `SourceError`, kept on the error so
  /// code can branch on the cause rather than read the message.
  public typealias Reason = SourceError

  /// The error for `reason`, with its code and message.
  public init(_ reason: Reason) {
    self.init(reason.code, reason.message)
    self.reason = reason
  }
}

extension SourceError {
  /// The `CLError`-like code a source's error is reported with.
  public var code: LocationManager.Error.Code {
    switch self {
    case .permissionDenied: .denied
    case .captureUnreadable(_, _, let denied): denied ? .denied : .locationUnknown
    case .noDevice, .deviceBusy, .notASerialDevice, .unsupportedBaudRate, .deviceFailed, .deviceLost: .deviceUnavailable
    case .silentDevice, .noNMEAAtRate, .noNMEAAtAnyRate, .gpsdHasNoDevice, .gpsdHasNoFix, .captureHasNoData: .locationUnknown
    case .gpsdNotRunning, .hostNotFound, .hostLookupFailed, .gpsdUnreachable, .gpsdSilent, .gpsdConnectionLost, .gpsdError: .network
    case .endOfCapture: .endOfCapture
    }
  }
}
