import FoundationEssentials
import GPSLocation

/// The manual pages, `gpsbridge(1)` and `gpsbridge-SUBCOMMAND(1)`, in the form Debian's gpsd
/// ships (NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS, FILES, EXAMPLES, SEE ALSO), made
/// from the same option tables and texts as `--help`: `gpsbridge help --man [SUBCOMMAND]`.
enum ManPage {
  /// The page's name: `gpsbridge`, `gpsbridge-serve`.
  static func name(_ topic: HelpTopic) -> String { topic == .main ? "gpsbridge" : "gpsbridge-" + topic.rawValue }

  /// The page of `topic`, as roff for `man`.
  static func roff(_ topic: HelpTopic, date: String) -> String {
    let page = Help.page(topic)
    let synopsis = Help.spec(topic) { $0.synopsis(width: 72, lead: 0) }
    let options = Help.spec(topic) { $0.optionSummaries }
    var lines = [
      ".\\\" Made by 'gpsbridge help --man\(topic == .main ? "" : " " + topic.rawValue)' from its option tables: do not edit.",
      ".TH \(String(name(topic).uppercased().flatMap { $0 == "-" ? "\\-" : String($0) })) 1 \"\(date)\" \"gpsbridge \(GPSBridge.version)\" \"User Commands\"",
      ".SH NAME",
      "\(escape(name(topic))) \\- \(escape(lowercasedFirst(page.overview)))",
      ".SH SYNOPSIS",
      ".nf",
    ]
    lines += synopsis.map { "\\&" + escape($0) }
    if topic == .main { lines.append("\\&gpsbridge <subcommand> [<options>]") }
    lines += [".fi", ".SH DESCRIPTION", escape(page.overview)]
    if let discussion = page.discussion { lines += [".PP", escape(discussion.replacingNewlines())] }
    if topic == .main {
      lines += [".PP", "The subcommands, each with a page of its own:"]
      for (subcommand, overview) in page.subcommands {
        lines += [
          ".TP", "\\fB\(escape(subcommand))\\fR", "\(escape(overview)) See \\fB\(escape(name(HelpTopic(rawValue: subcommand)!)))\\fR(1).",
        ]
      }
    }
    if !page.arguments.isEmpty {
      lines.append(".SH ARGUMENTS")
      for (argument, help) in page.arguments { lines += [".TP", "\\fI\(escape(argument))\\fR", escape(help)] }
    }
    lines.append(".SH OPTIONS")
    for option in options {
      let names = option.names.map { "\\fB\(escape($0))\\fR" }.joined(separator: ", ")
      let value =
        option.takesValue
        ? (option.valueIsOptional ? " [\\fI\(escape(option.placeholder))\\fR]" : " \\fI\(escape(option.placeholder))\\fR") : ""
      lines += [".TP", names + value, escape(option.help + (option.defaultValue.map { " (default: \($0))" } ?? ""))]
    }
    lines += [".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "Show help information."]
    if topic == .main { lines += [".TP", "\\fB\\-\\-version\\fR", "Show the version."] }
    lines += [".SH EXIT STATUS", escape(exitStatus(topic)), ".SH FILES"]
    for (path, what) in files(topic) { lines += [".TP", "\\fI\(escape(path))\\fR", escape(what)] }
    if !page.examples.isEmpty {
      lines.append(".SH EXAMPLES")
      for example in page.examples { lines += [".PP", ".nf", ".RS 4", "\\&" + escape(example), ".RE", ".fi"] }
    }
    let siblings = ([HelpTopic.main] + HelpTopic.subcommands).filter { $0 != topic }.map { "\\fB\(escape(name($0)))\\fR(1)" }
    lines += [
      ".SH SEE ALSO",
      (siblings + ["\\fBgpsd\\fR(8)", "\\fBgpspipe\\fR(1)", "\\fBcgps\\fR(1)", "\\fBchronyd\\fR(8)"]).joined(separator: ", "),
    ]
    return lines.joined(separator: "\n") + "\n"
  }

  static func exitStatus(_ topic: HelpTopic) -> String {
    switch topic {
    case .main:
      "0 on success, or when a replay reached its end; 1 on a runtime failure that cannot go away (its cause is said on standard error); 64 on a usage error."
    case .configure:
      "0 when the change was made and verified (or, with --show or --dry-run, read); 1 when it failed and the receiver's settings were restored; 64 on a usage error."
    case .check: "0 when the capture holds valid data; 1 when it does not or cannot be read; 64 on a usage error."
    case .time:
      "0 when chrony steers the clock by one of its reference clocks; 1 when it does not, or cannot be asked (the reason is said); 64 on a usage error."
    default: "0 on success; 1 on a runtime failure that cannot go away (its cause is said on standard error); 64 on a usage error."
    }
  }

  /// The files each command reads or makes.
  static func files(_ topic: HelpTopic) -> [(String, String)] {
    let devices = [
      ("/dev/serial/by-id/", "Stable names of USB serial devices, where receivers are found first."),
      ("/dev/ttyUSB*, /dev/ttyACM*", "Serial devices of USB receivers; reading them needs the dialout group."),
      (
        "$GPSBRIDGE_DEV_ROOT, $GPSBRIDGE_SYSFS_ROOT",
        "Where to look for receivers instead of /dev and /sys (a container with the host's devices mounted elsewhere)."
      ),
    ]
    switch topic {
    case .main, .devices, .configure:
      return devices + [("/usr/lib/udev/rules.d/99-gpsbridge.rules", "Gives known receivers the link /dev/gps0 and the dialout group.")]
    case .time:
      return [
        ("/run/chrony/chronyd.sock", "chrony's command socket, which chronyc talks to (root or the _chrony user)."),
        ("/etc/chrony/chrony.conf", "Where chrony's refclock lines go."),
      ]
    case .completion:
      return [
        ("/usr/share/bash-completion/completions/gpsbridge", "The bash script, as the Debian package installs it."),
        ("/usr/share/zsh/vendor-completions/_gpsbridge", "The zsh script, as the Debian package installs it."),
      ]
    case .record, .simulate, .check:
      return [("FILE", "A capture: the receiver's bytes as they came, behind # comment lines; read by --replay and gpsfake.")]
    case .serve:
      return devices + [
        ("/etc/default/gpsbridge", "GPSBRIDGE_OPTIONS for the service: the receivers to serve, --chrony, --pps."),
        ("/usr/lib/systemd/system/gpsbridge.service", "The service, started by its socket on a client's first connection."),
        ("/usr/lib/systemd/system/gpsbridge.socket", "gpsd's port, 127.0.0.1:2947 and [::1]:2947, held by systemd."),
        ("/run/chrony.*.sock", "chrony's SOCK refclocks, when --chrony names one."),
      ]
    case .ntrip:
      return [("/etc/default/gpsbridge", "Where the service's --ntrip goes, in GPSBRIDGE_OPTIONS, once a mountpoint is chosen.")]
    }
  }

  /// Text with roff's special characters escaped: backslashes, hyphens (so they stay minus
  /// signs for copying), and a leading dot or quote.
  static func escape(_ text: String) -> String {
    var escaped = String(text.flatMap { $0 == "\\" ? "\\e" : $0 == "-" ? "\\-" : String($0) })
    if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
    return escaped
  }

  static func lowercasedFirst(_ text: String) -> String {
    guard let first = text.first else { return text }
    let trimmed = text.hasSuffix(".") ? String(text.dropLast()) : text
    return first.lowercased() + trimmed.dropFirst()
  }
}
