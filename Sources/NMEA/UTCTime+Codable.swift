/// Times encode as text people can read in golden files and JSON output: `"12:00:00.250"`
/// and `"2024-05-01T12:00:00.250Z"`, with nine fraction digits when milliseconds would lose
/// precision. Decoding accepts any number of fraction digits.
extension UTCTime: Codable {
  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let time = UTCTime(text) else {
      throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a time of day: \(text)"))
    }
    self = time
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(preciseDescription)
  }

  /// `hh:mm:ss.fff`, or nine fraction digits when the time is not a whole millisecond.
  var preciseDescription: String {
    guard nanosecond % 1_000_000 != 0 else { return description }
    let fraction = String(nanosecond + 1_000_000_000).dropFirst()
    return String(description.dropLast(4)) + "." + fraction
  }

  /// Reads `hh:mm:ss` with an optional fraction.
  public init?(_ text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 3, let hour = Int(parts[0]), let minute = Int(parts[1]) else { return nil }
    let secondParts = parts[2].split(separator: ".", omittingEmptySubsequences: false)
    guard let second = Int(secondParts[0]), secondParts.count <= 2 else { return nil }
    var nanosecond = 0
    if secondParts.count == 2 {
      let digits = secondParts[1]
      guard !digits.isEmpty, digits.count <= 9, let value = Int(digits) else { return nil }
      nanosecond = value * Int(pow10(9 - digits.count))
    }
    guard (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second) else { return nil }
    self.init(hour: hour, minute: minute, second: second, nanosecond: nanosecond)
  }
}

extension UTCTimestamp: Codable {
  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let timestamp = UTCTimestamp(text) else {
      throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 UTC time: \(text)"))
    }
    self = timestamp
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode("\(date)T\(time.preciseDescription)Z")
  }

  /// Reads `YYYY-MM-DDThh:mm:ss[.fff]Z`.
  public init?(_ text: String) {
    guard text.hasSuffix("Z"), let separator = text.firstIndex(of: "T") else { return nil }
    guard let date = UTCDate(iso8601: text[..<separator].utf8),
      let time = UTCTime(String(text[text.index(after: separator)..<text.index(before: text.endIndex)]))
    else { return nil }
    self.init(date: date, time: time)
  }
}

private func pow10(_ exponent: Int) -> Int64 {
  (0..<exponent).reduce(1) { value, _ in value * 10 }
}
