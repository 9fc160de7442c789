import GPSLocation
import Plumbing

/// What a receiver has thrown away so far, by reason ("3 bad checksum"), as its latest
/// `rejected` event said: for the status line to show while the run goes on.
final class RejectedInput: Sendable {
  private let summary = Locked<String?>(nil)

  /// Listens to `receiver` for its counts.
  init(listeningTo receiver: Receiver) {
    receiver.listen(wanting: []) { [summary] event in
      if case .rejected(let counts) = event { summary.withLock { $0 = counts } }
    }
  }

  /// The latest counts, or `nil` while nothing was rejected.
  var description: String? { summary.withLock { $0 } }
}
