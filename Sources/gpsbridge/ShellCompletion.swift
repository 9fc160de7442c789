import FoundationEssentials
import GPSLocation

/// What a shell offers for an option's value.
enum ValueCompletion: Equatable, Sendable {
  /// Nothing: the value is typed (a number, an address).
  case none
  /// File names.
  case files
  /// Serial devices that may be receivers: /dev/serial/by-id/*, /dev/ttyUSB*, /dev/ttyACM*, /dev/gps*.
  case devices
  /// One of these words.
  case words([String])
}

extension CommandOption {
  /// This option, whose value completes as `completion`.
  func completing(_ completion: ValueCompletion) -> Self {
    var copy = self
    copy.completion = completion
    return copy
  }

  /// What a shell offers after this option: as declared, else files for a `<file>`, `<path>`
  /// or `<link>`, else nothing.
  var valueCompletion: ValueCompletion {
    if let completion { return completion }
    guard let value else { return .none }
    return ["<file>", "<path>", "<link>"].contains(value) ? .files : .none
  }
}

/// Shell completion scripts, made from the option tables: `gpsbridge completion bash|zsh`.
enum ShellCompletion {
  /// The shells a script is made for.
  static let shells = ["bash", "zsh"]

  /// Every command: the main one (`""`) and each subcommand, with its options.
  static var commands: [(name: String, overview: String, options: [OptionSummary], takesFiles: Bool)] {
    HelpTopic.allCases.map { topic in
      Help.spec(topic) { spec in
        (topic == .main ? "" : topic.rawValue, spec.overview, spec.optionSummaries, spec.takesPositionalFiles)
      }
    }
  }

  static var subcommandNames: [String] { HelpTopic.subcommands.map(\.rawValue) + ["help"] }

  /// The bash script: a `_gpsbridge` function that `complete -F` binds to the program.
  static var bash: String {
    var lines = [
      "# bash completion for gpsbridge, made by 'gpsbridge completion bash' from its option tables.",
      "# Install it as /usr/share/bash-completion/completions/gpsbridge, or source it from ~/.bashrc.",
      "_gpsbridge() {",
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" command=\"\" i",
      "  for ((i = 1; i < COMP_CWORD; i++)); do",
      "    case \"${COMP_WORDS[i]}\" in",
      "    \(subcommandNames.joined(separator: "|"))) command=\"${COMP_WORDS[i]}\"; break ;;",
      "    esac",
      "  done",
      "  COMPREPLY=()",
      "  case \"$command:$prev\" in",
    ]
    for command in commands {
      for option in command.options where option.takesValue {
        let pattern = option.names.map { "\(command.name):\($0)" }.joined(separator: "|")
        let reply: String
        switch option.completion {
        case .none: reply = "return"
        case .files: reply = "COMPREPLY=($(compgen -f -- \"$cur\")); return"
        case .devices:
          reply =
            "COMPREPLY=($(compgen -W \"$(ls -d /dev/serial/by-id/* /dev/ttyUSB* /dev/ttyACM* /dev/gps* 2>/dev/null)\" -- \"$cur\")); return"
        case .words(let words): reply = "COMPREPLY=($(compgen -W \"\(words.joined(separator: " "))\" -- \"$cur\")); return"
        }
        lines.append("  \(pattern)) \(reply) ;;")
      }
    }
    lines += [
      "  help:help) COMPREPLY=($(compgen -W \"\(HelpTopic.subcommands.map(\.rawValue).joined(separator: " "))\" -- \"$cur\")); return ;;",
      "  esac",
      "  local options",
      "  case \"$command\" in",
    ]
    for command in commands where !command.name.isEmpty {
      let words = command.options.flatMap(\.names) + ["--help"]
      lines.append("  \(command.name)) options=\"\(words.joined(separator: " "))\" ;;")
    }
    let mainOptions = (commands.first { $0.name.isEmpty }?.options.flatMap(\.names) ?? []) + ["--help", "--version"]
    lines += [
      "  help) return ;;",
      "  *) options=\"\(mainOptions.joined(separator: " "))\" ;;",
      "  esac",
      "  if [[ \"$cur\" == -* ]]; then",
      "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))",
      "  elif [ -z \"$command\" ]; then",
      "    COMPREPLY=($(compgen -W \"\(subcommandNames.joined(separator: " "))\" -- \"$cur\"))",
      "  else",
      "    COMPREPLY=($(compgen -f -- \"$cur\"))",
      "  fi",
      "}",
      "complete -F _gpsbridge gpsbridge",
    ]
    return lines.joined(separator: "\n") + "\n"
  }

  /// The zsh script: a `#compdef` function for `fpath` (or /usr/share/zsh/vendor-completions).
  static var zsh: String {
    var lines = [
      "#compdef gpsbridge",
      "# zsh completion for gpsbridge, made by 'gpsbridge completion zsh' from its option tables.",
      "",
      "_gpsbridge_devices() {",
      "  local -a devices",
      "  devices=(/dev/serial/by-id/*(N) /dev/ttyUSB*(N) /dev/ttyACM*(N) /dev/gps*(N))",
      "  compadd -a devices",
      "}",
      "",
      "_gpsbridge() {",
      "  local -a commands",
      "  commands=(",
    ]
    for command in commands where !command.name.isEmpty {
      lines.append("    \(zshQuoted(command.name + ":" + command.overview))")
    }
    lines += [
      "    'help:Show help for a command.'",
      "  )",
      "  if (( CURRENT == 2 )) && [[ $words[2] != -* ]]; then",
      "    _describe -t commands 'gpsbridge command' commands",
      "    return",
      "  fi",
      "  local command=$words[2]",
      "  case $command in",
    ]
    for command in commands where !command.name.isEmpty {
      lines.append("  \(command.name))")
      lines.append("    shift words; (( CURRENT-- ))")
      lines.append("    _arguments -s \\")
      lines += command.options.map { "      " + zshSpec($0) + " \\" }
      lines.append("      '(- *)--help[Show help information.]'" + (command.takesFiles ? " \\" : ""))
      if command.takesFiles { lines.append("      '*:file:_files'") }
      lines.append("    ;;")
    }
    let main = commands.first { $0.name.isEmpty }!
    lines += ["  help)", "    _describe -t commands 'gpsbridge command' commands", "    ;;", "  *)", "    _arguments -s \\"]
    lines += main.options.map { "      " + zshSpec($0) + " \\" }
    lines += [
      "      '(- *)--version[Show the version.]' \\", "      '(- *)--help[Show help information.]'", "    ;;", "  esac", "}", "",
      "_gpsbridge \"$@\"",
    ]
    return lines.joined(separator: "\n") + "\n"
  }

  static func zshSpec(_ option: OptionSummary) -> String {
    let help = String(option.help.prefix { $0 != "." && $0 != ":" }.map { $0 == "[" ? "(" : $0 == "]" ? ")" : $0 })
    let repeated = option.repeats ? "*" : ""
    let names = option.names.count == 1 ? repeated + option.names[0] : "\(repeated){\(option.names.joined(separator: ","))}"
    var spec = "\(names)[\(help)]"
    if option.takesValue {
      let placeholder = String(option.placeholder.filter { !"<>[]".contains($0) }.map { $0 == ":" ? "-" : $0 })
      let action: String
      switch option.completion {
      case .none: action = " "
      case .files: action = "_files"
      case .devices: action = "_gpsbridge_devices"
      case .words(let words): action = "(\(words.joined(separator: " ")))"
      }
      spec += (option.valueIsOptional ? "::" : ":") + "\(placeholder):\(action)"
    }
    return zshQuoted(spec)
  }

  /// `text` in single quotes for zsh (a quote inside becomes `'\''`).
  static func zshQuoted(_ text: String) -> String {
    "'" + String(text.flatMap { $0 == "'" ? "'\\''" : String($0) }) + "'"
  }
}

/// One option as the completions and the man page see it, whatever its command's draft type.
struct OptionSummary {
  var names: [String]
  var placeholder: String
  var takesValue: Bool
  var valueIsOptional: Bool
  var help: String
  var defaultValue: String?
  var repeats: Bool
  var completion: ValueCompletion
}

extension CommandSpec {
  var optionSummaries: [OptionSummary] {
    options.map {
      OptionSummary(
        names: $0.names, placeholder: $0.value ?? "", takesValue: $0.value != nil, valueIsOptional: $0.valueIsOptional,
        help: $0.help, defaultValue: $0.defaultValue, repeats: $0.role.repeats, completion: $0.valueCompletion)
    }
  }

  /// Whether its positional arguments are files or paths.
  var takesPositionalFiles: Bool { positional != nil }
}
