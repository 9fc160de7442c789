import Corrections
import GPSLocation

/// `run --ntrip`: RTK corrections streamed to the run's receiver while it runs, the fix
/// quality's moves said on stderr, and a cause that cannot go away (the caster refuses the
/// password, has no such mountpoint) kept for the run to end on.
final class RunCorrections: Sendable {
  let client: NTRIPClient
  private let streaming: Task<Void, Never>
  private let failure: Shared<String?>

  init(_ configuration: NTRIPClient.Configuration, receiver: Receiver, name: String) {
    let client = NTRIPClient(configuration, receiver: receiver, said: { Terminal.diagnostic($0) })
    let failure = Shared<String?>(nil)
    self.client = client
    self.failure = failure
    Terminal.diagnostic("gpsbridge: corrections for \(name) from \(configuration.address).")
    followFixQuality(of: receiver) { from, to in Terminal.diagnostic("gpsbridge: the fix went from \(from.name) to \(to.name).") }
    streaming = Task {
      do {
        try await client.run()
      } catch {
        failure.withLock { $0 = "corrections: \(error)" }
      }
    }
  }

  /// Why the corrections stopped for good, if they did.
  var failed: String? { failure.withLock { $0 } }

  func stop() async {
    streaming.cancel()
    await streaming.value
  }
}
