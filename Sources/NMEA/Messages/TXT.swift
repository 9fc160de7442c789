/// TXT: a text message from the receiver (start-up banners, antenna status, warnings).
///
/// ```
///        1  2  3  4
///        |  |  |  |
/// $--TXT,xx,xx,xx,c--c*hh
/// ```
/// 1 sentences in the group · 2 this sentence's number · 3 text identifier (00 error,
/// 01 warning, 02 notice, 07 user — u-blox's usage) · 4 the text.
public struct TXT: Hashable, Sendable {
  public var talker: Talker
  public var messageCount: Int?
  public var messageNumber: Int?
  public var identifier: Int?
  public var text: String
}

extension TXT {
  public init(_ sentence: Sentence) throws(NMEAError) { self = try sentence.withView(TXT.init) }

  package init(_ sentence: SentenceView) throws(NMEAError) {
    try sentence.require(.txt)
    self = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in
      let count = try fields.integer()
      let number = try fields.integer()
      let identifier = try fields.integer()
      // The text is the rest of the line, commas included.
      var text = fields.next().text
      while fields.hasMore { text += "," + fields.next().text }
      return TXT(
        talker: sentence.talker, messageCount: count, messageNumber: number, identifier: identifier, text: text)
    }
  }
}
