/// What went wrong with a source of bytes (a serial receiver, gpsd, a capture): the transports'
/// own typed error, for code that must branch on the cause rather than read the message. Each
/// case's message, which says what to do, is made here and nowhere else; `GPSLocation` gives it
/// a `CLError`-like code as `LocationManager.Error.reason`.
public enum SourceError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The process may not open the device (`EACCES`, `EPERM`).
  /// `group`: the group the device node belongs to, when one other than root may open it.
  case permissionDenied(path: String, group: String? = nil)
  /// Nothing at the path (yet): the receiver is not plugged in.
  case noDevice(path: String)
  /// Another process holds the device.
  case deviceBusy(path: String)
  /// The path is not a serial device (a plain file, `/dev/null`, a directory).
  case notASerialDevice(path: String)
  /// The serial port cannot be set to this speed (not one of `supportedRates`).
  case unsupportedBaudRate(path: String, rate: Int, supportedRates: [Int])
  /// The device could not be used for another reason, named by the C library.
  case deviceFailed(path: String, description: String)
  /// The device went away while open (unplugged).
  case deviceLost(path: String, description: String?)
  /// An open device sent nothing for this many seconds.
  case silentDevice(path: String, seconds: Int)
  /// A device sends bytes but no NMEA at a fixed baud rate.
  case noNMEAAtRate(path: String, seconds: Int)
  /// A device sends no NMEA at any baud rate tried.
  case noNMEAAtAnyRate(path: String, seconds: Int)
  /// Nothing listens at the gpsd address.
  case gpsdNotRunning(address: String)
  /// The gpsd host's name does not resolve.
  case hostNotFound(host: String)
  /// The gpsd host's name could not be looked up now (the name server did not answer).
  case hostLookupFailed(host: String)
  /// gpsd could not be reached for another reason, named by the C library.
  case gpsdUnreachable(address: String, description: String)
  /// A server accepted the connection at the gpsd address but sent nothing (no VERSION banner)
  /// for this many seconds: not a gpsd, or a hung one.
  case gpsdSilent(address: String, seconds: Int)
  /// An open connection to gpsd ended or went silent.
  case gpsdConnectionLost(address: String, description: String)
  /// gpsd answered a request with an error.
  case gpsdError(address: String, message: String)
  /// gpsd runs but has no receiver.
  case gpsdHasNoDevice(address: String)
  /// gpsd has a receiver but no fix after this many seconds.
  case gpsdHasNoFix(address: String, seconds: Int)
  /// A capture cannot be opened or read.
  case captureUnreadable(path: String, description: String, denied: Bool)
  /// A capture holds no NMEA sentence and no gpsd report in all its bytes.
  case captureHasNoData(path: String, bytes: Int)
  /// A replayed capture has no more data.
  case endOfCapture(summary: String)

  /// Whether the cause can go away by itself, so the source keeps trying (unplugged, busy,
  /// gpsd down, silent), or cannot (a wrong kind of file, an unreadable capture, a name that
  /// does not resolve, no permission), so the source stops after saying so once.
  public var isPermanent: Bool {
    switch self {
    case .permissionDenied, .notASerialDevice, .unsupportedBaudRate, .captureUnreadable, .captureHasNoData, .hostNotFound, .endOfCapture:
      true
    default: false
    }
  }

  /// What happened and what to do about it, and for a cause that may pass, what the source
  /// does meanwhile ("Waiting for it.").
  public var message: String {
    guard let meanwhile else { return summary }
    return summary + " " + meanwhile
  }

  /// What the source does while the cause lasts, for causes that may pass.
  public var meanwhile: String? {
    switch self {
    case .noDevice, .deviceBusy, .deviceLost: "Waiting for it."
    case .gpsdNotRunning, .hostLookupFailed, .gpsdUnreachable: "Retrying."
    case .gpsdConnectionLost: "Reconnecting."
    case .noNMEAAtAnyRate: "Autobaud keeps trying."
    default: nil
    }
  }

  /// What happened and what to do about it, in one or two sentences.
  public var summary: String {
    switch self {
    case .permissionDenied(let path, let group?):
      "Permission denied opening \(path): it belongs to the group '\(group)'. Add yourself to it (sudo usermod -aG \(group) $USER, then log in again)."
    case .permissionDenied(let path, nil):
      "Permission denied opening \(path): only root may open it. gpsbridge's udev rules give known receivers to the 'dialout' group"
        + " (the package installs them; from the source, sudo cp udev/99-gpsbridge.rules /etc/udev/rules.d/): then plug the receiver in again."
    case .noDevice(let path):
      "No device at \(path). Plug the receiver in, or run 'gpsbridge devices' to see the serial devices present."
    case .deviceBusy(let path):
      "\(path) is busy: another program holds it (gpsd, ModemManager, another gpsbridge?). Stop it, or read through gpsd with --gpsd."
    case .notASerialDevice(let path):
      "\(path) is not a serial device. Give the receiver's tty, for example /dev/ttyUSB0, /dev/ttyACM0 or a /dev/serial/by-id/ link (see 'gpsbridge devices')."
    case .unsupportedBaudRate(let path, let rate, let supported):
      "Cannot set \(path) to \(rate) baud: the serial port takes \(supported.sorted().map(String.init).joined(separator: ", ")). Give one of those, or automatic to find it."
    case .deviceFailed(let path, let description):
      "Cannot use \(path): \(description). Check the device ('gpsbridge devices' lists them), or plug it in again."
    case .deviceLost(let path, let description):
      "The receiver at \(path) went away\(description.map { " (\($0))" } ?? ""). Plug it in again if it was unplugged."
    case .silentDevice(let path, let seconds):
      "No data from \(path) for \(seconds) s. Is the receiver powered and connected?"
    case .noNMEAAtRate(let path, let seconds):
      "Data from \(path) but no valid NMEA for \(seconds) s: wrong baud rate? Try --baud auto."
    case .noNMEAAtAnyRate(let path, let seconds):
      "No NMEA from \(path) at any baud rate from 4800 to 921600 (tried for \(seconds) s). Check that it is a GPS receiver and that it outputs NMEA, not only a binary protocol."
    case .gpsdNotRunning(let address):
      "gpsd is not running on \(address) (connection refused). Start it (sudo systemctl start gpsd), or point --gpsd at HOST:PORT."
    case .hostNotFound(let host):
      "The gpsd host '\(host)' is not known (its name does not resolve). Check the spelling, or give an address such as 192.168.1.20."
    case .hostLookupFailed(let host):
      "Cannot look up the gpsd host '\(host)': the name server did not answer. Check the network, or give an address such as 192.168.1.20."
    case .gpsdUnreachable(let address, let description):
      "Cannot reach gpsd on \(address): \(description). Check the host and port."
    case .gpsdSilent(let address, let seconds):
      "The server at \(address) accepted the connection and sent nothing for \(seconds) s: a gpsd greets every client at once. Is it a gpsd, and is it running normally?"
    case .gpsdConnectionLost(let address, let description):
      "Lost the connection to gpsd on \(address) (\(description)). Check that gpsd runs (systemctl status gpsd)."
    case .gpsdError(let address, let message):
      "gpsd on \(address) says: \(message). Check the --gpsd device name."
    case .gpsdHasNoDevice(let address):
      "gpsd on \(address) has no GPS device. Start it with one (gpsd /dev/ttyACM0), or check that hotplugging added it (gpsctl, or 'gpsbridge devices')."
    case .gpsdHasNoFix(let address, let seconds):
      "gpsd on \(address) has a receiver but no fix after \(seconds) s. Give it a clear view of the sky; a cold start can take a minute."
    case .captureUnreadable(let path, let description, _):
      "Cannot read the capture \(path): \(description). Check the path, or make one with 'gpsbridge record' or 'gpsbridge simulate'."
    case .captureHasNoData(let path, let bytes):
      "Found no NMEA and no gpsd JSON in the \(bytes) bytes of \(path). A capture is a receiver's own output (gpsbridge record, gpsbridge simulate) or a gpsd log (gpspipe -w)."
    case .endOfCapture(let summary):
      summary
    }
  }

  public var description: String { message }
}
