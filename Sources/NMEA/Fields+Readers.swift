/// Readers made of the fused ones, so that a message's init reads like a format string: one
/// line per field, in ruler order.
extension Fields {
  /// A whole number that must lie in `range`.
  @inline(__always)
  public mutating func integer(in range: ClosedRange<Int>) throws(NMEAError) -> Int? {
    guard let value = try integer() else { return nil }
    guard range.contains(value) else { throw invalid }
    return value
  }

  /// An `A` (valid) / `V` (void) status field.
  public mutating func status() throws(NMEAError) -> Bool? {
    switch try character() {
    case nil: return nil
    case UInt8(ascii: "A"): return true
    case UInt8(ascii: "V"): return false
    default: throw invalid
    }
  }

  /// A mode indicator letter (`A`, `D`, `E`, `N`, …).
  public mutating func modeIndicator() throws(NMEAError) -> FixQuality? {
    guard let letter = try character() else { return nil }
    guard let quality = FixQuality(modeIndicator: letter) else { throw invalid }
    return quality
  }

  /// Latitude `ddmm.mmmm` and its `N`/`S` field.
  public mutating func latitude() throws(NMEAError) -> Coordinate? {
    try coordinate(positive: UInt8(ascii: "N"), negative: UInt8(ascii: "S"), maximum: 90)
  }

  /// Longitude `dddmm.mmmm` and its `E`/`W` field.
  public mutating func longitude() throws(NMEAError) -> Coordinate? {
    try coordinate(positive: UInt8(ascii: "E"), negative: UInt8(ascii: "W"), maximum: 180)
  }

  /// A number followed by its unit letter (`545.4,M`), which must match when present.
  public mutating func decimal(unit: UInt8) throws(NMEAError) -> FixedPoint? {
    let value = try decimal()
    if let letter = try character(), letter != unit { throw invalid }
    return value
  }

  /// A decimal number that must lie in `range` (a value no receiver can have is a corrupted
  /// field).
  public mutating func decimal(in range: ClosedRange<Double>) throws(NMEAError) -> FixedPoint? {
    guard let value = try decimal() else { return nil }
    guard range.contains(value.doubleValue) else { throw invalid }
    return value
  }

  /// A number in `range` followed by its unit letter (`545.4,M`).
  public mutating func decimal(unit: UInt8, in range: ClosedRange<Double>) throws(NMEAError) -> FixedPoint? {
    let start = self
    let value = try decimal(unit: unit)
    if let value, !range.contains(value.doubleValue) { throw start.invalid(at: start.position + 1) }
    return value
  }

  /// A number followed by a direction letter; `negative` makes it negative (`3.1,W`).
  public mutating func signedDecimal(positive: UInt8, negative: UInt8) throws(NMEAError) -> FixedPoint? {
    let value = try decimal()
    let direction = try character()
    guard var value else { return nil }
    if let direction {
      guard direction == positive || direction == negative else { throw invalid }
      if direction == negative { value.mantissa = -value.mantissa }
    }
    return value
  }

  /// A required field: throws ``NMEAError/missingField(_:field:)`` when it is empty.
  public mutating func required<Value>(_ read: (inout Fields) throws(NMEAError) -> Value?) throws(NMEAError) -> Value {
    let start = self
    guard let value = try read(&self) else { throw .missingField(type, field: start.nextIndex) }
    return value
  }
}
