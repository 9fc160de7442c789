import NMEA

/// Formats NMEA 0183 sentences straight into bytes: begin with the address, append the fields
/// in ruler order, and ``end()`` adds the checksum and CRLF.
///
/// ```swift
/// var writer = NMEAWriter()
/// writer.begin("GPGGA")
/// writer.time(time, decimals: 2)
/// writer.latitude(47.3769, decimals: 5)
/// …
/// writer.end()
/// ```
///
/// Numbers are formatted from integers (never through `String(format:)`), rounded half away
/// from zero, so the same value always gives the same text on every platform.
public struct NMEAWriter: Sendable {
  /// Everything written so far.
  public private(set) var bytes: [UInt8] = []
  private var sentenceStart = 0

  public init(reservingCapacity capacity: Int = 1024) {
    bytes.reserveCapacity(capacity)
  }

  /// `$` and the address (`GPGGA`, `PGRME`); fields follow, each after a comma.
  public mutating func begin(_ address: String) {
    bytes.append(UInt8(ascii: "$"))
    sentenceStart = bytes.count
    bytes.append(contentsOf: address.utf8)
  }

  /// The checksum and the line end.
  public mutating func end() {
    var checksum: UInt8 = 0
    for index in sentenceStart..<bytes.count { checksum ^= bytes[index] }
    bytes.append(UInt8(ascii: "*"))
    bytes.append(Self.hexDigits[Int(checksum >> 4)])
    bytes.append(Self.hexDigits[Int(checksum & 15)])
    bytes.append(0x0D)
    bytes.append(0x0A)
  }

  /// A `#` comment line, as gpsd's captures carry (`# Date: 2024-05-01`).
  public mutating func comment(_ text: String) {
    bytes.append(UInt8(ascii: "#"))
    bytes.append(UInt8(ascii: " "))
    bytes.append(contentsOf: text.utf8)
    bytes.append(0x0D)
    bytes.append(0x0A)
  }

  /// A field of text as it is (`A`, `M`, `N`).
  public mutating func field(_ text: String) {
    bytes.append(UInt8(ascii: ","))
    bytes.append(contentsOf: text.utf8)
  }

  /// `count` empty fields: values unknown.
  public mutating func empty(_ count: Int = 1) {
    for _ in 0..<count { bytes.append(UInt8(ascii: ",")) }
  }

  /// A whole number with at least `width` digits (`07`).
  public mutating func integer(_ value: Int, width: Int = 1) {
    bytes.append(UInt8(ascii: ","))
    appendDigits(value, width: width)
  }

  /// A whole number in upper-case hexadecimal (NMEA 4.10 system and signal IDs).
  public mutating func hexadecimal(_ value: Int) {
    bytes.append(UInt8(ascii: ","))
    var digits: [UInt8] = []
    var rest = max(0, value)
    repeat {
      digits.append(Self.hexDigits[rest & 15])
      rest >>= 4
    } while rest > 0
    bytes.append(contentsOf: digits.reversed())
  }

  /// A number with exactly `decimals` decimals and at least `width` integer digits.
  public mutating func decimal(_ value: Double, decimals: Int, width: Int = 1) {
    bytes.append(UInt8(ascii: ","))
    appendDecimal(value, decimals: decimals, width: width)
  }

  /// `hhmmss` with `decimals` fraction digits of the second.
  public mutating func time(_ time: UTCTime, decimals: Int) {
    bytes.append(UInt8(ascii: ","))
    appendDigits(time.hour, width: 2)
    appendDigits(time.minute, width: 2)
    appendDigits(time.second, width: 2)
    guard decimals > 0 else { return }
    bytes.append(UInt8(ascii: "."))
    var divisor = 1_000_000_000
    for _ in 0..<decimals { divisor /= 10 }
    appendDigits(time.nanosecond / divisor, width: decimals)
  }

  /// `ddmmyy`.
  public mutating func date(_ date: UTCDate) {
    bytes.append(UInt8(ascii: ","))
    appendDigits(date.day, width: 2)
    appendDigits(date.month, width: 2)
    appendDigits(date.year % 100, width: 2)
  }

  /// Latitude as `ddmm.mmmm` and its `N`/`S` field.
  public mutating func latitude(_ degrees: Double, decimals: Int) {
    coordinate(degrees, degreeDigits: 2, decimals: decimals, positive: "N", negative: "S")
  }

  /// Longitude as `dddmm.mmmm` and its `E`/`W` field.
  public mutating func longitude(_ degrees: Double, decimals: Int) {
    coordinate(degrees, degreeDigits: 3, decimals: decimals, positive: "E", negative: "W")
  }

  /// One whole sentence from its text between `$` and `*`, with checksum and CRLF:
  /// `NMEAWriter.line("GPGGA,…")`.
  public static func line(_ body: String) -> String {
    var writer = NMEAWriter(reservingCapacity: body.utf8.count + 8)
    writer.begin(body)
    writer.end()
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  // MARK: Digits

  static let hexDigits = Array("0123456789ABCDEF".utf8)
  static let powersOfTen: [Int64] = (0...15).map { exponent in (0..<exponent).reduce(1) { value, _ in value * 10 } }

  private mutating func coordinate(_ degrees: Double, degreeDigits: Int, decimals: Int, positive: String, negative: String) {
    bytes.append(UInt8(ascii: ","))
    // Minutes in units of 10^-decimals, rounded once, so a carry into the degrees is exact.
    let scale = Self.powersOfTen[decimals]
    let units = Int64((abs(degrees) * 60 * Double(scale)).rounded())
    let unitsPerDegree = 60 * scale
    appendDigits(Int(units / unitsPerDegree), width: degreeDigits)
    let minutes = units % unitsPerDegree
    appendDigits(Int(minutes / scale), width: 2)
    if decimals > 0 {
      bytes.append(UInt8(ascii: "."))
      appendDigits(Int(minutes % scale), width: decimals)
    }
    bytes.append(UInt8(ascii: ","))
    bytes.append(contentsOf: (degrees < 0 ? negative : positive).utf8)
  }

  private mutating func appendDecimal(_ value: Double, decimals: Int, width: Int) {
    let scale = Self.powersOfTen[decimals]
    let scaled = Int64((abs(value) * Double(scale)).rounded())
    if value < 0, scaled != 0 { bytes.append(UInt8(ascii: "-")) }
    appendDigits(Int(scaled / scale), width: width)
    if decimals > 0 {
      bytes.append(UInt8(ascii: "."))
      appendDigits(Int(scaled % scale), width: decimals)
    }
  }

  private mutating func appendDigits(_ value: Int, width: Int) {
    var digits:
      (
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
        UInt8
      ) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    var rest = value.magnitude
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    withUnsafeMutableBytes(of: &digits) { buffer in
      repeat {
        buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
        rest /= 10
        count += 1
      } while rest > 0 && count < 20
    }
    for _ in count..<max(count, width) { bytes.append(UInt8(ascii: "0")) }
    withUnsafeBytes(of: digits) { buffer in
      for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
    }
  }
}
