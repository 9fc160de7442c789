/// How an option appears in its command's synopsis (the `USAGE:` line, the README's "Command
/// line" block, the man page's SYNOPSIS): declared beside the option, so the synopsis is made
/// from the same table as the parser and cannot drift from it.
struct SynopsisRole: Equatable, Sendable {
  /// Options that share a group are alternatives: `[--device … | --gpsd … | --replay …]`.
  var group: String?
  /// An option that only makes sense with another is shown after it: `--device <path> [--baud <rate>]`.
  var attachedTo: String?
  /// Shown without brackets: the command needs it (or, for a group, one of its members).
  var required = false
  /// May be given more than once: `…`.
  var repeats = false
}

extension CommandOption {
  /// This option, one of the alternatives of `group`.
  func inGroup(_ group: String) -> Self { with { $0.role.group = group } }
  /// This option, shown after `primary` (an option name) in the synopsis.
  func attached(to primary: String) -> Self { with { $0.role.attachedTo = primary } }
  /// This option (or its group), needed.
  func required() -> Self { with { $0.role.required = true } }
  /// This option, repeatable.
  func repeating() -> Self { with { $0.role.repeats = true } }

  private func with(_ change: (inout Self) -> Void) -> Self {
    var copy = self
    change(&copy)
    return copy
  }

  /// `--name <value>`, `--gpsd [<host[:port]>]`, `--device <path>...`.
  var synopsisForm: String {
    let name = names.last!
    let value = value.map { valueIsOptional ? " [\($0)]" : " \($0)" } ?? ""
    return name + value
  }
}

extension CommandSpec {
  /// The synopsis as words that are never broken apart: the command, its arguments, then each
  /// option or group of alternatives with the options attached to them, in table order.
  var synopsisUnits: [String] {
    var units = [command] + (positionalSynopsis.map { [$0] } ?? [])
    var groupsShown: Set<String> = []
    for option in options where option.role.attachedTo == nil {
      if let group = option.role.group {
        guard groupsShown.insert(group).inserted else { continue }
        let members = options.filter { $0.role.group == group }
        let alternatives = members.map { member in
          member.synopsisForm + (member.role.repeats ? "..." : "") + attachments(of: member)
        }
        let needed = members.contains { $0.role.required }
        units.append((needed ? "(" : "[") + alternatives.joined(separator: " | ") + (needed ? ")" : "]"))
      } else if option.role.required {
        units.append(option.synopsisForm + (option.role.repeats ? "..." : "") + attachments(of: option))
      } else {
        units.append("[" + option.synopsisForm + attachments(of: option) + "]" + (option.role.repeats ? "..." : ""))
      }
    }
    return units
  }

  /// ` [--baud <rate|auto>]` for `--device`: the options attached to `option`, each with its own.
  private func attachments(of option: CommandOption<Draft>) -> String {
    options.filter { attached in option.names.contains { $0 == attached.role.attachedTo } }
      .map { " [" + $0.synopsisForm + attachments(of: $0) + "]" + ($0.role.repeats ? "..." : "") }
      .joined()
  }

  /// The command as typed: `gpsbridge`, `gpsbridge serve`.
  var command: String { topic == .main ? "gpsbridge" : "gpsbridge " + topic.rawValue }

  /// The synopsis in lines of at most `width` characters after `lead` (the first line's
  /// prefix, such as `USAGE: `), later lines indented under the first option. A group too
  /// long for a line breaks before a `|`.
  func synopsis(width: Int = HelpPage.width, lead: Int = 0) -> [String] {
    let indent = String(repeating: " ", count: lead + command.count + 1)
    var lines: [String] = []
    var line = ""
    for unit in synopsisUnits {
      for (index, piece) in alternatives(unit).enumerated() {
        let word = index == 0 ? String(piece) : "| " + piece
        let fits = (lines.isEmpty ? lead : 0) + line.count + 1 + word.count <= width
        if line.isEmpty {
          line = word
        } else if fits {
          line += " " + word
        } else {
          lines.append(line)
          line = indent + word
        }
      }
    }
    lines.append(line)
    return lines
  }
}

/// `unit` cut at each ` | ` (a bar between spaces: `<rate|auto>` is one piece).
private func alternatives(_ unit: String) -> [Substring] {
  var pieces: [Substring] = []
  var start = unit.startIndex
  var index = unit.startIndex
  while index < unit.endIndex {
    if unit[index...].hasPrefix(" | ") {
      pieces.append(unit[start..<index])
      index = unit.index(index, offsetBy: 3)
      start = index
    } else {
      index = unit.index(after: index)
    }
  }
  pieces.append(unit[start...])
  return pieces
}
