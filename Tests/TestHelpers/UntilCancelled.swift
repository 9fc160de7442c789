/// Returns when the calling task is cancelled, and not before: a stream that never yields
/// ends its iteration at the cancellation. For a stand-in that holds on until it is let go,
/// without a clock.
public func untilCancelled() async {
  let (never, continuation) = AsyncStream<Void>.makeStream()
  defer { continuation.finish() }  // (kept until then: a stream whose continuation is gone ends)
  for await _ in never {}
}
