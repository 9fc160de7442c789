import Plumbing

/// What a live source has thrown away so far, by reason ("3 bad checksum", "2 malformed, 1
/// out of range"), for a status line to show while it runs. The source sets it as it reads;
/// anyone may read it.
package final class RejectedInput: Sendable {
  private let summary = Locked<String?>(nil)

  package init() {}

  /// The latest counts, or `nil` while nothing was rejected.
  package var description: String? { summary.withLock { $0 } }

  func update(_ new: String?) {
    summary.withLock { $0 = new }
  }
}
