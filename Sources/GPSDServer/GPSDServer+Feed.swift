import GPSD
import NMEA
import Plumbing
import Transports

extension GPSDServer {
  /// Where a served receiver's data comes from: a serial device, a capture, another gpsd.
  public typealias Source = ReceiverSource

  /// Serves `source` until the task is cancelled or the source ends (a capture's end, a
  /// cause that cannot go away): see ``serve(_:device:bitsPerSecond:)``.
  public func feed(from source: Source) async {
    await serve(source.receiver, device: source.device, bitsPerSecond: source.bitsPerSecond)
  }

  /// Serves `receiver` as `device` until the task is cancelled or its source ends: fixes as
  /// TPV, SKY, GST and ATT, the receiver's sentences and bytes to the clients that watch them,
  /// and `DEVICE` notices when it comes and goes. Other listeners of the receiver (a status
  /// line) hear the same events. A replay's or the simulator's fixes are served as
  /// simulated (TPV `status` 8, `DEVICE` `subtype` `simulated`): nobody measured them now.
  public func serve(_ receiver: Receiver, device: String, bitsPerSecond: Int? = nil) async {
    // The line's speed, once known, whichever of it and the device's arrival comes first.
    let speed = Locked(bitsPerSecond)
    let simulated = receiver.source.isSimulated
    let listener = receiver.listen(wanting: Self.alwaysWanted) { [self] event in
      switch event {
      case .fix(var fix):
        if simulated { fix.quality = .simulator }
        publish(.fix(fix, device: device))
      case .integrity(let integrity): publish(.integrity(integrity, device: device))
      case .sentence(let sentence): publish(.sentence(sentence, device: device))
      case .bytes(let bytes): publish(.bytes(bytes, device: device))
      case .status(.authorization(.authorizedAlways)):
        publish(.deviceAppeared(path: device, bitsPerSecond: speed.withLock { $0 }, cycle: 1, simulated: simulated))
      case .status(.paused), .status(.ended), .status(.stopped): publish(.deviceWentAway(device: device))
      case .lineSpeed(let rate):
        speed.withLock { $0 = rate }
        publish(.deviceSpeed(rate, device: device))
      default: break
      }
    }
    if receiver.source.initialAuthorization == .authorizedAlways {
      publish(.deviceAppeared(path: device, bitsPerSecond: bitsPerSecond, cycle: 1, simulated: simulated))
    }
    let feed = Feed(receiver: receiver, listener: listener)
    queue.sync {
      feeds.append(feed)
      receiver.update(listener, wanting: Self.alwaysWanted.union(watched))
    }
    // The listener wants fixes: the receiver's session goes on until this task is cancelled
    // or the source ends by itself.
    await receiver.waitForEnd()
    queue.sync { feeds.removeAll { $0.listener == listener && $0.receiver === receiver } }
    receiver.stopListening(listener)
    await receiver.sessionClosed()
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
    for client in clients {
      if client.watch.wantsSentences { wanted.insert(.sentences) }
      if client.watch.wantsBytes { wanted.insert(.bytes) }
    }
    guard wanted != watched else { return }
    watched = wanted
    for feed in feeds { feed.receiver.update(feed.listener, wanting: Self.alwaysWanted.union(wanted)) }
  }
}
