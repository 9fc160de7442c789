import GPSD
import NMEA
import Plumbing
import Transports

extension GPSDServer {
  /// Where a served receiver's data comes from.
  public enum Source: Sendable {
    /// A receiver on a serial device (a by-id link keeps working across replugs).
    case serial(path: String, baudRate: BaudRate = .automatic)
    /// A capture, replayed at `speed`, its sentences and bytes in step with its fixes.
    case replay(Capture, speed: ReplaySpeed = .realTime)
    /// Another gpsd: its reports, made into fixes and served again (no sentences or bytes).
    case gpsd(host: String, port: Int)

    /// The receiver for this source.
    public var receiver: Receiver {
      switch self {
      case .serial(let path, let baudRate): Receiver(SerialSource(path: path, baudRate: baudRate))
      case .replay(let capture, let speed): Receiver(ReplaySource(capture: capture, speed: speed, clock: ContinuousClock()))
      case .gpsd(let host, let port): Receiver(GPSDSource(host: host, port: port))
      }
    }

    /// The device name clients see in DEVICE and TPV.
    public var device: String {
      switch self {
      case .serial(let path, _): path
      case .replay(let capture, _): capture.description
      case .gpsd(let host, let port): "gpsd://\(GPSDAddress(host: host, port: port))"
      }
    }

    /// The serial speed when it was given (autobaud's is not known in advance).
    public var bitsPerSecond: Int? {
      if case .serial(_, .fixed(let rate)) = self { rate } else { nil }
    }
  }

  /// Serves `source` until the task is cancelled or the source ends (a capture's end, a
  /// cause that cannot go away): see ``serve(_:device:bitsPerSecond:)``.
  public func feed(from source: Source) async {
    await serve(source.receiver, device: source.device, bitsPerSecond: source.bitsPerSecond)
  }

  /// Serves `receiver` as `device` until the task is cancelled or its source ends: fixes as
  /// TPV, SKY, GST and ATT, the receiver's sentences and bytes to the clients that watch them,
  /// and `DEVICE` notices when it comes and goes. Other listeners of the receiver (a status
  /// line) hear the same events.
  public func serve(_ receiver: Receiver, device: String, bitsPerSecond: Int? = nil) async {
    // The line's speed, once known, whichever of it and the device's arrival comes first.
    let speed = Locked(bitsPerSecond)
    let listener = receiver.listen(wanting: Self.alwaysWanted) { [self] event in
      switch event {
      case .fix(let fix): publish(.fix(fix, device: device))
      case .sentence(let sentence): publish(.sentence(sentence, device: device))
      case .bytes(let bytes): publish(.bytes(bytes, device: device))
      case .status(.authorization(.authorizedAlways)):
        publish(.deviceAppeared(path: device, bitsPerSecond: speed.withLock { $0 }, cycle: 1))
      case .status(.paused), .status(.ended), .status(.stopped): publish(.deviceWentAway(device: device))
      case .lineSpeed(let rate):
        speed.withLock { $0 = rate }
        publish(.deviceSpeed(rate, device: device))
      default: break
      }
    }
    if receiver.source.initialAuthorization == .authorizedAlways {
      publish(.deviceAppeared(path: device, bitsPerSecond: bitsPerSecond, cycle: 1))
    }
    let feed = Feed(receiver: receiver, listener: listener)
    queue.sync {
      feeds.append(feed)
      receiver.update(listener, wanting: Self.alwaysWanted.union(watched))
    }
    await receiver.run()
    queue.sync { feeds.removeAll { $0.listener == listener && $0.receiver === receiver } }
    receiver.stopListening(listener)
  }

  /// A served receiver and the server's listener of it.
  struct Feed {
    var receiver: Receiver
    var listener: Receiver.Listener
  }

  /// What the server takes from every receiver; bytes and sentences only while a client
  /// watches them (see ``clientsChanged()``).
  static let alwaysWanted: Receiver.Interests = [.fixes, .satellites]

  /// After a client's watch changed or it left (on `queue`): the receivers copy out their
  /// bytes and each sentence, a dozen copies and hand-overs an epoch between its last byte and
  /// the reports, only while some client watches them.
  func clientsChanged() {
    var wanted: Receiver.Interests = []
    for client in clients.values {
      if client.watch.wantsSentences { wanted.insert(.sentences) }
      if client.watch.wantsBytes { wanted.insert(.bytes) }
    }
    guard wanted != watched else { return }
    watched = wanted
    for feed in feeds { feed.receiver.update(feed.listener, wanting: Self.alwaysWanted.union(wanted)) }
  }
}
