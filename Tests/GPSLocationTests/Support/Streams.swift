import GPSLocation

/// Collects a delegate stream's actions until `stop` says enough, or the stream ends.
func collect(_ stream: AsyncStream<LocationManager.Action>, until stop: (LocationManager.Action) -> Bool) async -> [LocationManager.Action]
{
  var actions: [LocationManager.Action] = []
  for await action in stream {
    actions.append(action)
    if stop(action) { break }
  }
  return actions
}

/// The locations in a list of actions.
func locations(_ actions: [LocationManager.Action]) -> [Location] {
  actions.flatMap { action -> [Location] in if case .didUpdateLocations(let locations) = action { locations } else { [] } }
}

/// The first error a delegate stream reports, skipping everything before it.
func firstFailure(_ stream: AsyncStream<LocationManager.Action>) async -> LocationManager.Error? {
  for await action in stream { if case .didFailWithError(let failure) = action { return failure } }
  return nil
}
