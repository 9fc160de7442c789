/// Splits a stream of bytes from a receiver into checksum-verified NMEA sentences.
///
/// Feed bytes in chunks of any size with `append(_:)` and drain complete sentences with
/// ``next()`` until it returns `nil` ("need more bytes"). At end of input call ``finish()``
/// and drain once more, so a last sentence without a line terminator is not lost. The same
/// bytes give the same sentences and the same ``counters`` however they are split.
///
/// ```
///  storage: | consumed | current line (kept) | scanned, not yet framed … | free |
///           0          readIndex             scanIndex                   count
/// ```
///
/// The framer is one state machine over bytes:
/// - A sentence starts at `$` (or `!`, encapsulated sentences such as AIS) and ends at CR or
///   LF; `CRLF`, `LF`, `CR CR LF` and blank lines all work. A `$` inside a line starts over
///   there, so `$$GPGGA` and a sentence cut short by the next one both frame cleanly.
/// - A line starting with `#` is a comment, as in gpsd's captures; `# Date: YYYY-MM-DD`
///   sets ``captureDate`` for streams that never send a date.
/// - Bytes outside any sentence (binary protocol packets, NUL padding, a shell's text) are
///   counted in ``Counters/noiseBytes`` and skipped. A control or non-ASCII byte inside a
///   sentence breaks it: it is counted as noise and framing resumes at the next `$`.
/// - A sentence longer than ``maximumSentenceLength`` is counted and dropped, so memory stays
///   bounded by that limit plus the largest chunk appended, whatever the input.
public struct Framer: Sendable {
  /// The longest sentence accepted, from `$` through the checksum, without the line end.
  ///
  /// NMEA 0183 allows 82 characters including CRLF, but real receivers exceed it: gpsd raised
  /// its own limit to 102 for this reason, and proprietary sentences (u-blox `$PUBX`,
  /// Septentrio, Quectel configuration replies) and NMEA 4.11 GSV lines with long signal
  /// lists run longer still. 200 accepts all of those while bounding what one line can hold.
  public static let maximumSentenceLength = 200

  /// The longest address of a proprietary sentence (`P`, a maker's letters, its type):
  /// Quectel's run to 18 (`$PQTMGEOFENCESTATUS`).
  static let maximumProprietaryAddress = 24

  /// The longest comment line whose text is kept for parsing; longer comments are skipped.
  static let maximumCommentLength = 200

  /// Choices about what to accept.
  public struct Options: Hashable, Sendable {
    /// Accept sentences that carry no `*hh` checksum, as some old receivers send them.
    /// Off by default: without a checksum, line noise cannot be told from data.
    public var acceptsMissingChecksum: Bool

    public init(acceptsMissingChecksum: Bool = false) {
      self.acceptsMissingChecksum = acceptsMissingChecksum
    }
  }

  /// What happened to every byte and line, so callers can report link quality.
  public struct Counters: Hashable, Sendable, Codable {
    /// Sentences framed and returned by ``Framer/next()``.
    public var sentences = 0
    /// Sentences whose checksum did not match; dropped.
    public var badChecksum = 0
    /// Sentences without a checksum; dropped unless ``Options/acceptsMissingChecksum``.
    public var missingChecksum = 0
    /// Lines longer than ``Framer/maximumSentenceLength``; dropped.
    public var overlong = 0
    /// Lines with a bad address or junk after the checksum; dropped.
    public var malformed = 0
    /// Bytes that belonged to no sentence (line terminators excepted).
    public var noiseBytes = 0
    /// `#` comment lines.
    public var comments = 0
    /// Lines that begin with noise: not a sentence, a comment nor an empty line (what a gpsd
    /// log holds that is not gpsd's, or a shell's text).
    public var noiseLines = 0

    public init() {}
  }

  public let options: Options
  /// The counters so far.
  public private(set) var counters = Counters()
  /// The date from the capture's latest `# Date: YYYY-MM-DD` comment, if any.
  public private(set) var captureDate: UTCDate?

  var storage: [UInt8] = []
  var scan = ScanState()

  public init(options: Options = .init()) {
    self.options = options
  }

  /// Adds bytes that arrived from the source.
  public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
    compact()
    scan.atEnd = false
    storage.append(contentsOf: bytes)
  }

  /// Adds bytes from a raw buffer, as read from a file descriptor.
  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    compact()
    scan.atEnd = false
    storage.append(contentsOf: bytes)
  }

  /// Marks the end of input: a sentence or comment still open is judged as though its line
  /// had ended. Drain with ``next()`` afterwards. Appending again starts a new line.
  public mutating func finish() {
    scan.atEnd = true
  }

  /// Bytes held for a line not yet complete (bounded by ``maximumSentenceLength``).
  public var bufferedByteCount: Int { storage.count - scan.readIndex }

  /// The next complete sentence, or `nil` when more bytes are needed.
  public mutating func next() -> Sentence? {
    nextFrame().map { Sentence(storage: storage, frame: $0) }
  }

  /// ``next()`` without the ``Sentence`` around it: where the sentence lies in ``storage``,
  /// which the caller reads in place (``FixDecoder`` does, so that the hot path counts no
  /// references).
  package mutating func nextFrame() -> Frame? {
    while true {
      let event = Framer.byteClasses.withUnsafeBufferPointer { classes in
        storage.withUnsafeBufferPointer { bytes in
          Framer.advance(&scan, &counters, bytes: bytes, classes: classes, options: options)
        }
      }
      switch event {
      case .needMore:
        return nil
      case .sentence(let start, let payloadEnd, let end, let addressEnd, let fieldCount):
        return frame(start: start, payloadEnd: payloadEnd, end: end, addressEnd: addressEnd, fieldCount: fieldCount)
      case .comment(let start, let end):
        readComment(from: start, to: end)
      }
    }
  }

  /// Drops consumed bytes once they make up half the buffer (or all of it), so the buffer
  /// neither grows with the stream nor moves bytes on every append.
  mutating func compact() {
    let consumed = scan.readIndex
    guard consumed > 0 else { return }
    if consumed == storage.count {
      storage.removeAll(keepingCapacity: true)
    } else if consumed >= storage.count / 2 {
      storage.removeSubrange(0..<consumed)
    } else {
      return
    }
    scan.shift(by: consumed)
  }

  /// Describes a line ``judge`` accepted, reading its talker and type from the address
  /// (already checked to be 2–10 letters or digits, or longer for a proprietary one).
  func frame(start: Int, payloadEnd: Int, end: Int, addressEnd: Int, fieldCount: Int) -> Frame {
    var talker: UInt16 = 0
    var type: UInt64 = 0
    let addressStart = start + 1
    let talkerLength = storage[addressStart] == UInt8(ascii: "P") ? 1 : 2
    let length = addressEnd - addressStart
    if length <= 8, addressStart + 8 <= storage.count {
      // The whole address in one load, its first byte highest, as the loop below packs it.
      let word = storage.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: addressStart, as: UInt64.self) }.byteSwapped
      let address = word &>> UInt64(64 - 8 * length)
      let typeBits = UInt64(8 * (length - talkerLength))
      talker = UInt16(truncatingIfNeeded: address &>> typeBits)
      type = address & ((1 &<< typeBits) &- 1)
    } else {
      for index in addressStart..<addressEnd {
        let position = index - addressStart
        if position < talkerLength {
          talker = talker << 8 | UInt16(storage[index])
        } else if position < talkerLength + 8 {
          type = type << 8 | UInt64(storage[index])
        }
      }
    }
    return Frame(
      start: start, payloadEnd: payloadEnd, end: end, addressEnd: addressEnd, fieldCount: fieldCount,
      talker: Talker(rawValue: talker), type: SentenceType(rawValue: type))
  }

  /// Reads `# Date: 2024-05-01` (any amount of space around the parts) from the comment line
  /// `storage[start..<end]`; other comments are only counted.
  mutating func readComment(from start: Int, to end: Int) {
    let date = storage.withUnsafeBufferPointer { bytes -> UTCDate? in
      func skipSpace(_ index: inout Int) {
        while index < end, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
      }
      var index = start + 1
      skipSpace(&index)
      let key: StaticString = "Date:"
      guard end - index >= key.utf8CodeUnitCount else { return nil }
      for offset in 0..<key.utf8CodeUnitCount where bytes[index + offset] != key.utf8Start[offset] { return nil }
      index += key.utf8CodeUnitCount
      skipSpace(&index)
      var stop = index
      while stop < end, bytes[stop] != UInt8(ascii: " "), bytes[stop] != UInt8(ascii: "\t") { stop += 1 }
      return UTCDate(iso8601: UnsafeBufferPointer(rebasing: bytes[index..<stop]))
    }
    if let date { captureDate = date }
  }

}

extension Framer {
  /// Where the state machine is between calls. Indices point into `storage`.
  struct ScanState: Sendable {
    enum Mode: UInt8, Sendable {
      case lineStart, noise, sentence, overlong, comment, skipLine
    }

    var mode = Mode.lineStart
    var readIndex = 0
    var scanIndex = 0
    /// Start of the open sentence or comment.
    var lineStart = 0
    /// Index of `*` in the open sentence, or -1.
    var starIndex = -1
    /// XOR of the open sentence's bytes between `$` and `*`.
    var checksum: UInt8 = 0
    /// Commas in the open sentence before `*`: its number of data fields.
    var commas = 0
    var atEnd = false

    mutating func shift(by offset: Int) {
      readIndex -= offset
      scanIndex -= offset
      lineStart -= offset
      if starIndex >= 0 { starIndex -= offset }
    }
  }

  enum Event {
    case needMore
    case sentence(start: Int, payloadEnd: Int, end: Int, addressEnd: Int, fieldCount: Int)
    case comment(start: Int, end: Int)
  }

  /// Byte classes for the per-byte switch.
  enum ByteClass {
    static let text: UInt8 = 0
    static let lineEnd: UInt8 = 1
    static let start: UInt8 = 2
    static let star: UInt8 = 3
    static let invalid: UInt8 = 4
  }

  static let byteClasses: [UInt8] = (0...255).map { (byte: Int) -> UInt8 in
    switch byte {
    case 0x0D, 0x0A: ByteClass.lineEnd
    case 0x24, 0x21: ByteClass.start  // `$` and `!`
    case 0x2A: ByteClass.star
    case 0x20...0x7E: ByteClass.text
    default: ByteClass.invalid
    }
  }

  /// Runs the state machine from `state.scanIndex` until it frames a sentence or a comment,
  /// or runs out of bytes.
  static func advance(
    _ state: inout ScanState, _ counters: inout Counters, bytes: UnsafeBufferPointer<UInt8>,
    classes: UnsafeBufferPointer<UInt8>, options: Options
  ) -> Event {
    let count = bytes.count
    var index = state.scanIndex
    defer {
      state.scanIndex = index
      switch state.mode {
      case .sentence, .comment: state.readIndex = state.lineStart
      default: state.readIndex = index
      }
    }
    while index < count {
      switch state.mode {
      case .sentence:
        // The hot loop: most bytes of a stream are ordinary sentence text. `+` through `~`
        // covers digits, letters, `,`, `.` and `-`; anything else leaves the loop. Eight bytes
        // at a time: their XOR folds into the checksum, and their commas are counted, so no
        // decoder has to count them again.
        var checksum = state.checksum
        if state.starIndex < 0 {
          let raw = UnsafeRawPointer(bytes.baseAddress!)
          var folded: UInt64 = 0
          // A 0 or 1 per byte lane for each comma, summed lane by lane: a sentence is too short
          // for a lane to overflow between two folds.
          var commaLanes: UInt64 = 0
          while index &+ 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let outside = Word.outsideText(word)
            if outside == 0 {
              folded ^= word
              commaLanes &+= Word.commas(word)
              index &+= 8
              if commaLanes & 0x8080_8080_8080_8080 != 0 { break }
              continue
            }
            let inside = outside.trailingZeroBitCount >> 3
            let keep = inside == 0 ? 0 : Word.all >> UInt64(64 - 8 * inside)
            folded ^= word & keep
            commaLanes &+= Word.commas(word) & keep
            index &+= inside
            break
          }
          var commas = Int((commaLanes &* 0x0101_0101_0101_0101) >> 56)
          folded ^= folded >> 32
          folded ^= folded >> 16
          folded ^= folded >> 8
          checksum ^= UInt8(truncatingIfNeeded: folded)
          while index < count, bytes[index] &- 0x2B < 0x54 {
            checksum ^= bytes[index]
            if bytes[index] == UInt8(ascii: ",") { commas &+= 1 }
            index &+= 1
          }
          state.commas &+= commas
          // The usual ending, `*hh` and a line end, is judged at once rather than byte by byte.
          if index &+ 3 < count, bytes[index] == UInt8(ascii: "*"), bytes[index &+ 1] &- 0x2B < 0x54,
            bytes[index &+ 2] &- 0x2B < 0x54, bytes[index &+ 3] == 0x0D || bytes[index &+ 3] == 0x0A,
            index &+ 3 &- state.lineStart <= maximumSentenceLength
          {
            state.checksum = checksum
            state.starIndex = index
            state.mode = .lineStart
            index &+= 4
            if let event = judge(&state, &counters, bytes: bytes, end: index &- 1, start: state.lineStart, options: options) {
              return event
            }
            continue
          }
        } else {
          while index < count, bytes[index] &- 0x2B < 0x54 { index += 1 }
        }
        state.checksum = checksum
        // The length limit is checked here, off the per-byte path: wherever the loop stops.
        if index - state.lineStart > maximumSentenceLength {
          counters.overlong += 1
          state.mode = .overlong
          continue
        }
        guard index < count else { break }
        let byte = bytes[index]
        let byteClass = classes[Int(byte)]
        index += 1
        if byteClass == ByteClass.lineEnd {
          state.mode = .lineStart
          if let event = judge(&state, &counters, bytes: bytes, end: index - 1, start: state.lineStart, options: options) {
            return event
          }
        } else if byteClass == ByteClass.star {
          if state.starIndex < 0 { state.starIndex = index - 1 }
        } else if byteClass == ByteClass.start {
          counters.noiseBytes += index - 1 - state.lineStart
          beginSentence(&state, at: index - 1)
        } else if byteClass == ByteClass.text {
          // Space and the other printable bytes below `+`: part of the sentence.
          if state.starIndex < 0 { state.checksum ^= byte }
        } else {
          counters.noiseBytes += index - state.lineStart
          state.mode = .noise
        }
      case .lineStart, .noise:
        let byte = bytes[index]
        let byteClass = classes[Int(byte)]
        index += 1
        if byteClass == ByteClass.start {
          beginSentence(&state, at: index - 1)
        } else if byteClass == ByteClass.lineEnd {
          state.mode = .lineStart
        } else if state.mode == .lineStart && byte == UInt8(ascii: "#") {
          state.mode = .comment
          state.lineStart = index - 1
        } else {
          if state.mode == .lineStart { counters.noiseLines += 1 }
          counters.noiseBytes += 1
          state.mode = .noise
        }
      case .overlong:
        let byteClass = classes[Int(bytes[index])]
        index += 1
        if byteClass == ByteClass.start {
          beginSentence(&state, at: index - 1)
        } else if byteClass == ByteClass.lineEnd {
          state.mode = .lineStart
        }
      case .comment:
        let byteClass = classes[Int(bytes[index])]
        index += 1
        if byteClass == ByteClass.lineEnd {
          state.mode = .lineStart
          counters.comments += 1
          return .comment(start: state.lineStart, end: index - 1)
        } else if index - state.lineStart > maximumCommentLength {
          counters.comments += 1
          state.mode = .skipLine
        }
      case .skipLine:
        let byteClass = classes[Int(bytes[index])]
        index += 1
        if byteClass == ByteClass.lineEnd { state.mode = .lineStart }
      }
    }
    if state.atEnd {
      // End of input ends the open line.
      switch state.mode {
      case .sentence:
        state.mode = .lineStart
        if let event = judge(&state, &counters, bytes: bytes, end: count, start: state.lineStart, options: options) {
          return event
        }
      case .comment:
        state.mode = .lineStart
        counters.comments += 1
        return .comment(start: state.lineStart, end: count)
      default:
        state.mode = .lineStart
      }
    }
    return .needMore
  }

  @inline(__always)
  static func beginSentence(_ state: inout ScanState, at index: Int) {
    state.mode = .sentence
    state.lineStart = index
    state.starIndex = -1
    state.checksum = 0
    state.commas = 0
  }

  /// Decides the fate of a complete line `bytes[start..<end]` that began with `$` or `!`.
  @inline(__always)
  static func judge(
    _ state: inout ScanState, _ counters: inout Counters, bytes: UnsafeBufferPointer<UInt8>,
    end: Int, start: Int, options: Options
  ) -> Event? {
    // The address first: a line that is not even shaped like a sentence is malformed,
    // whatever its checksum. A valid address is 2–10 upper-case letters or digits, or up to
    // ``maximumProprietaryAddress`` for a proprietary one (`P` first: Quectel's
    // `$PQTMJAMMINGSTATUS` has 17).
    let star = state.starIndex
    let payloadLimit = star >= 0 ? star : end
    let longest = start &+ 1 < payloadLimit && bytes[start &+ 1] == UInt8(ascii: "P") ? Self.maximumProprietaryAddress : 10
    var addressEnd = start &+ 1
    while addressEnd < payloadLimit, addressEnd &- start <= longest &+ 1 {
      let byte = bytes[addressEnd]
      if byte == UInt8(ascii: ",") { break }
      guard byte &- 0x41 < 26 || byte &- 0x30 < 10 else {
        counters.malformed += 1
        return nil
      }
      addressEnd &+= 1
    }
    let addressLength = addressEnd &- start &- 1
    guard addressLength >= 2, addressLength <= longest else {
      counters.malformed += 1
      return nil
    }
    let payloadEnd: Int
    if star >= 0 {
      guard end - star == 3, let high = hexDigitValue(bytes[star + 1]), let low = hexDigitValue(bytes[star + 2])
      else {
        counters.malformed += 1
        return nil
      }
      guard high << 4 | low == state.checksum else {
        counters.badChecksum += 1
        return nil
      }
      payloadEnd = star
    } else {
      counters.missingChecksum += 1
      guard options.acceptsMissingChecksum else { return nil }
      payloadEnd = end
    }
    counters.sentences += 1
    return .sentence(start: start, payloadEnd: payloadEnd, end: end, addressEnd: addressEnd, fieldCount: state.commas)
  }
}

/// Tests on eight bytes at once, as one little-endian `UInt64` (SWAR).
enum Word {
  static let all = UInt64.max
  static let highBits: UInt64 = 0x8080_8080_8080_8080

  /// A high bit set at least in the lowest byte that is not sentence text (`+` through `~`),
  /// exactly there: a borrow or carry only ever spreads upwards from a byte that is itself
  /// outside.
  @inline(__always)
  static func outsideText(_ word: UInt64) -> UInt64 {
    let below = (word &- 0x2B2B_2B2B_2B2B_2B2B) & ~word & highBits
    let above = ((word &+ 0x0101_0101_0101_0101) | word) & highBits
    return below | above
  }

  /// 1 in the lane of each comma, 0 elsewhere.
  @inline(__always)
  static func commas(_ word: UInt64) -> UInt64 {
    let other = word ^ 0x2C2C_2C2C_2C2C_2C2C
    let nonzero = ((other & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | other
    return (~nonzero & highBits) >> 7
  }
}
