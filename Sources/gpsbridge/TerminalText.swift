extension String {
  /// The text with every control character written out (`\n`, `\r`, `\t`, `\e`, else
  /// `\x{HH}`): a name from elsewhere (a region's identifier, a device path, a caster's words)
  /// shown on a terminal can then neither move the cursor, retitle the window, nor start a line
  /// of its own that passes for one of ours.
  var escapingControlCharacters: String {
    guard unicodeScalars.contains(where: \.isControl) else { return self }
    var shown = ""
    for scalar in unicodeScalars {
      switch scalar {
      case "\n": shown += "\\n"
      case "\r": shown += "\\r"
      case "\t": shown += "\\t"
      case "\u{1B}": shown += "\\e"
      case _ where scalar.isControl:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        shown += "\\x{" + (hex.count < 2 ? "0" + hex : hex) + "}"
      default: shown.unicodeScalars.append(scalar)
      }
    }
    return shown
  }
}

extension Unicode.Scalar {
  /// C0 controls, DEL and C1 controls: what a terminal acts on rather than shows.
  fileprivate var isControl: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}
