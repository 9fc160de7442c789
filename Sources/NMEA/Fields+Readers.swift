/// One reader per NMEA field type, each consuming its field(s) from the cursor, so that a
/// message's init reads like a format string: one line per field, in ruler order.
extension Fields {
  public mutating func time() throws(NMEAError) -> UTCTime? { try next().time() }
  public mutating func date() throws(NMEAError) -> UTCDate? { try next().date() }
  public mutating func decimal() throws(NMEAError) -> FixedPoint? { try next().decimal() }
  public mutating func integer() throws(NMEAError) -> Int? { try next().integer() }
  /// A whole number that must lie in `range`.
  public mutating func integer(in range: ClosedRange<Int>) throws(NMEAError) -> Int? {
    let field = next()
    guard let value = try field.integer() else { return nil }
    guard range.contains(value) else { throw field.invalid }
    return value
  }

  public mutating func hexadecimal() throws(NMEAError) -> Int? { try next().hexadecimal() }
  public mutating func character() throws(NMEAError) -> UInt8? { try next().character() }
  public mutating func status() throws(NMEAError) -> Bool? { try next().status() }
  public mutating func modeIndicator() throws(NMEAError) -> FixQuality? { try next().modeIndicator() }

  /// Latitude and its `N`/`S` field.
  public mutating func latitude() throws(NMEAError) -> Coordinate? {
    let value = next()
    return try value.latitude(hemisphere: next())
  }

  /// Longitude and its `E`/`W` field.
  public mutating func longitude() throws(NMEAError) -> Coordinate? {
    let value = next()
    return try value.longitude(hemisphere: next())
  }

  /// A number followed by its unit letter (`545.4,M`), which must match when present.
  public mutating func decimal(unit: UInt8) throws(NMEAError) -> FixedPoint? {
    let value = try next().decimal()
    try next().unit(unit)
    return value
  }

  /// A number followed by a direction letter; `negative` makes it negative (`3.1,W`).
  public mutating func signedDecimal(positive: UInt8, negative: UInt8) throws(NMEAError) -> FixedPoint? {
    let valueField = next()
    let directionField = next()
    guard var value = try valueField.decimal() else { return nil }
    if let direction = try directionField.character() {
      guard direction == positive || direction == negative else { throw directionField.invalid }
      if direction == negative { value.mantissa = -value.mantissa }
    }
    return value
  }

  /// A required field: throws ``NMEAError/missingField(_:field:)`` when it is empty.
  public mutating func required<Value>(_ read: (inout Fields) throws(NMEAError) -> Value?) throws(NMEAError) -> Value {
    let index = nextIndex
    guard let value = try read(&self) else { throw .missingField(type, field: index) }
    return value
  }
}
