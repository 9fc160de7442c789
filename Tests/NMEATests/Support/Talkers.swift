import NMEA

/// The talkers every message test runs with.
let talkers = ["GP", "GN", "GL", "GA", "GB", "BD", "GQ", "GI"]

/// Frames one line built from `body` (checksum added) and decodes it with `decode`.
func decode<Message>(_ body: String, _ decode: (Sentence) throws(NMEAError) -> Message) throws -> Message {
  guard let sentence = Sentence(nmea(body)) else { throw NMEAError.missingField(SentenceType(rawValue: 0), field: 0) }
  return try decode(sentence)
}

func fixed(_ text: String) -> FixedPoint {
  let parts = text.split(separator: ".")
  let scale = parts.count == 2 ? parts[1].count : 0
  return FixedPoint(mantissa: Int64(text.replacingOccurrences(of: ".", with: ""))!, scale: Int8(scale))
}
