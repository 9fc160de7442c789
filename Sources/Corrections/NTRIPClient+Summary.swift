extension NTRIPClient.Health {
  /// The stream's health in a few words, for a status line: "corrections 1.2 kB/s, 0.4 s old"
  /// while frames flow, else what the client is doing ("corrections: connecting").
  public var summary: String {
    guard connected, !receiverAway, let age = lastFrameAge else { return "corrections: \(state)" }
    let rate = bytesPerSecond >= 1000 ? "\(Self.oneDecimal(bytesPerSecond / 1000)) kB/s" : "\(Int(bytesPerSecond.rounded())) B/s"
    return "corrections \(rate), \(Self.oneDecimal(age)) s old"
  }

  private static func oneDecimal(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
  }
}
