/// A binary protocol a receiver may interleave with its NMEA.
public enum FramingStage: Hashable, Sendable, CaseIterable {
  /// u-blox's UBX packets: answers to configuration, acknowledgements, binary navigation.
  case ubx
  /// RTCM 3 messages: corrections a base station sends, echoed or sent on by some receivers.
  case rtcm3

  /// The first byte of every frame of the protocol. Neither is ASCII, so NMEA text never holds one.
  var sync: UInt8 {
    switch self {
    case .ubx: UBXFrame.sync.0
    case .rtcm3: RTCM3Frame.preamble
    }
  }

  func parse(_ bytes: UnsafeRawBufferPointer) -> ParseResult<ProtocolFrame> {
    switch self {
    case .ubx:
      switch UBXFrame.parse(bytes) {
      case .frame(let frame, let length): .frame(.ubx(frame), length: length)
      case .needMore: .needMore
      case .invalid: .invalid
      case .rejected(let reason): .rejected(reason)
      }
    case .rtcm3:
      switch RTCM3Frame.parse(bytes) {
      case .frame(let frame, let length): .frame(.rtcm3(frame), length: length)
      case .needMore: .needMore
      case .invalid: .invalid
      case .rejected(let reason): .rejected(reason)
      }
    }
  }
}

/// One frame of a binary protocol, taken out of a receiver's byte stream.
public enum ProtocolFrame: Hashable, Sendable {
  case ubx(UBXFrame)
  case rtcm3(RTCM3Frame)

  /// The frame as it was on the wire.
  public var bytes: [UInt8] {
    switch self {
    case .ubx(let frame): frame.bytes
    case .rtcm3(let frame): frame.bytes
    }
  }
}

/// Splits a receiver's byte stream into its protocols, losing none: each frame of a binary
/// stage (UBX, RTCM 3), checksum and all, goes one way, and everything else (NMEA, comments,
/// noise) the other, in order, for the NMEA framer, which is the last stage.
///
/// The stages are tried in their order at a byte that could start a frame; a start that is
/// no frame after all (a bad checksum, an impossible length) is text, so the NMEA framer
/// counts it as noise and no sentence after it is lost. A frame cut by the end of a read waits
/// for the next (at most one frame's bytes). Bytes without any stage's first byte, all of
/// NMEA, are handed on as they came, without a copy.
public struct StreamSplitter: Sendable {
  /// Frames taken out, by stage, since the start.
  public struct Counters: Hashable, Sendable {
    public var ubx = 0
    public var rtcm3 = 0
    /// Frames whose start was seen and that were thrown away, by protocol and reason.
    public var rejected: [FramingStage: [FrameRejection: Int]] = [:]
    public init() {}

    /// Every frame thrown away.
    public var rejectedCount: Int { rejected.values.reduce(0) { $0 + $1.values.reduce(0, +) } }
  }

  public let stages: [FramingStage]
  public private(set) var counters = Counters()
  /// The start of a frame not yet complete.
  private var pending: [UInt8] = []
  private let syncs: (UInt8, UInt8)

  /// A splitter trying `stages` in order.
  public init(stages: [FramingStage] = FramingStage.allCases) {
    self.stages = stages
    syncs = (stages.first?.sync ?? 0, stages.dropFirst().first?.sync ?? stages.first?.sync ?? 0)
  }

  /// Bytes held back as the start of a frame, until it is complete.
  public var pendingByteCount: Int { pending.count }

  /// Whether `bytes` need splitting at all: a frame's start is pending, or they hold a stage's
  /// first byte. (All-NMEA input never does, and can go to the NMEA framer as it is.) A scan
  /// of contiguous memory a word at a time (`contains(_:or:in:)`), nothing per byte.
  public func mayHoldFrames(_ bytes: UnsafeRawBufferPointer) -> Bool {
    !pending.isEmpty || (!stages.isEmpty && holdsSync(bytes))
  }

  private func holdsSync(_ bytes: UnsafeRawBufferPointer) -> Bool {
    Self.contains(syncs.0, or: syncs.1, in: bytes)
  }

  /// Whether `bytes` hold `first` or `second`: 64 bytes a turn, as four 16-byte vectors
  /// compared with both at once (the baseline x86-64 and arm64 vector units do this in a few
  /// instructions), so this stdlib-only module scans at about `memchr`'s speed.
  static func contains(_ first: UInt8, or second: UInt8, in bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    let count = bytes.count
    let a = SIMD16<UInt8>(repeating: first), b = SIMD16<UInt8>(repeating: second)
    @inline(__always) func holds(_ offset: Int) -> SIMDMask<SIMD16<Int8>> {
      let word = base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
      return (word .== a) .| (word .== b)
    }
    // Whether any lane is set, as two 64-bit halves: the standard library's `any` reduces
    // the lanes through a call that is not inlined, which cost as much as the compares.
    @inline(__always) func isSet(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
      let halves = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
      return halves[0] | halves[1] != 0
    }
    var offset = 0
    while offset + 64 <= count {
      if isSet(holds(offset) .| holds(offset + 16) .| holds(offset + 32) .| holds(offset + 48)) { return true }
      offset += 64
    }
    while offset + 16 <= count {
      if isSet(holds(offset)) { return true }
      offset += 16
    }
    while offset < count {
      let byte = base.load(fromByteOffset: offset, as: UInt8.self)
      if byte == first || byte == second { return true }
      offset += 1
    }
    return false
  }

  /// Splits `bytes`: `text` is called with each run of bytes outside frames, `frame` with each
  /// frame, in the order they came.
  public mutating func split(
    _ bytes: UnsafeRawBufferPointer, text: (UnsafeRawBufferPointer) -> Void, frame: (ProtocolFrame) -> Void
  ) {
    guard !stages.isEmpty else { return text(bytes) }
    if pending.isEmpty {
      guard holdsSync(bytes) else { return text(bytes) }
      process(bytes, text: text, frame: frame)
    } else {
      let combined = pending + bytes
      pending = []
      combined.withUnsafeBytes { process($0, text: text, frame: frame) }
    }
  }

  /// The end of the input: a frame never completed is text.
  public mutating func finish(text: (UnsafeRawBufferPointer) -> Void) {
    let rest = pending
    pending = []
    rest.withUnsafeBytes { if !$0.isEmpty { text($0) } }
  }

  private mutating func process(
    _ bytes: UnsafeRawBufferPointer, text: (UnsafeRawBufferPointer) -> Void, frame: (ProtocolFrame) -> Void
  ) {
    var textStart = 0
    var index = 0
    func passText(upTo end: Int) {
      if end > textStart { text(UnsafeRawBufferPointer(rebasing: bytes[textStart..<end])) }
    }
    scanning: while index < bytes.count {
      let byte = bytes[index]
      guard byte == syncs.0 || byte == syncs.1 else {
        index += 1
        continue
      }
      for stage in stages where stage.sync == byte {
        switch stage.parse(UnsafeRawBufferPointer(rebasing: bytes[index...])) {
        case .frame(let found, let length):
          passText(upTo: index)
          count(found)
          frame(found)
          index += length
          textStart = index
          continue scanning
        case .needMore:
          passText(upTo: index)
          pending = Array(bytes[index...])
          return
        case .invalid:
          continue
        case .rejected(let reason):
          counters.rejected[stage, default: [:]][reason, default: 0] += 1
          continue
        }
      }
      index += 1
    }
    passText(upTo: bytes.count)
  }

  private mutating func count(_ frame: ProtocolFrame) {
    switch frame {
    case .ubx: counters.ubx += 1
    case .rtcm3: counters.rtcm3 += 1
    }
  }
}
