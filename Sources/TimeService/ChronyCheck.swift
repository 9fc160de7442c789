import Plumbing

/// Whether chrony really uses the time it is fed: its refclocks as `chronyc -c sources` shows
/// them, each with what chrony made of it and what to do about it. Feeding a SOCK or SHM
/// refclock says nothing of whether chrony took the samples, selected the source, or threw it
/// out as a falseticker; this asks.
public struct ChronyCheck: Sendable, Equatable {
  /// One of chrony's sources (`chronyc -c sources`).
  public struct Source: Sendable, Equatable {
    /// `#` a reference clock, `^` a server, `=` a peer.
    public var mode: Character
    /// `*` selected, `+` combined, `-` not combined, `x` a falseticker, `~` too variable, `?`
    /// unusable (unreachable, or too few samples yet).
    public var state: Character
    /// A refclock's refid (`GPS`, `PPS`, `NMEA`), a server's address.
    public var name: String
    /// Which of the last eight polls brought samples (octal 377: all).
    public var reach: Int
    /// chrony's measured offset of the last sample, seconds (positive: this clock is ahead).
    public var offset: Double?
    /// Whether its refclock line says `noselect`: chrony measures it and never uses it.
    public var noselect = false

    public var isReferenceClock: Bool { mode == "#" }
    /// Whether chrony uses it to steer the clock: selected, or combined with the selected one.
    public var isUsed: Bool { state == "*" || state == "+" }
  }

  /// chrony's sources, in its order.
  public var sources: [Source]

  public init(sources: [Source]) { self.sources = sources }

  /// Parses `chronyc -c sources`: mode, state, name, stratum, poll, reach, last sample,
  /// adjusted offset, measured offset, error. Lines that are not such rows are skipped.
  public init(csv: String) {
    sources = csv.split(separator: "\n").compactMap { line in
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      guard fields.count >= 10, let mode = fields[0].first, fields[0].count == 1, let state = fields[1].first,
        let reach = Int(fields[5], radix: 8)
      else { return nil }
      return Source(mode: mode, state: state, name: fields[2], reach: reach, offset: Double(fields[8]))
    }
  }

  /// Marks the sources whose options in `chronyc -c selectdata` include noselect (`N` in the
  /// configured or effective options).
  public mutating func readSelectData(_ csv: String) {
    for line in csv.split(separator: "\n") {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      guard fields.count >= 11, fields[3] == "N" || fields[7] == "N" else { continue }
      for index in sources.indices where sources[index].name == fields[1] { sources[index].noselect = true }
    }
  }

  /// The reference clocks: where a receiver's time reaches chrony.
  public var referenceClocks: [Source] { sources.filter(\.isReferenceClock) }

  /// Whether chrony steers the clock by one of its reference clocks.
  public var usesReferenceClock: Bool { referenceClocks.contains(where: \.isUsed) }

  /// What chrony made of each reference clock, and what to do when it is not used; one line
  /// each (one line saying none is configured, when none is).
  public var findings: [String] {
    let clocks = referenceClocks
    guard !clocks.isEmpty else {
      return [
        "chrony has no refclock: add one to chrony.conf, such as 'refclock SOCK /run/chrony.gps.sock refid GPS poll 2 filter 4 offset 0.0', restart chrony, and run 'gpsbridge serve --device PATH --chrony /run/chrony.gps.sock'."
      ]
    }
    return clocks.map(Self.finding)
  }

  static func finding(_ clock: Source) -> String {
    let offset = clock.offset.map { " (offset \(milliseconds($0)))" } ?? ""
    if clock.noselect {
      return
        "\(clock.name): noselect: chrony measures it\(offset) but never uses it. Remove 'noselect' from its refclock line if chrony should steer the clock by it."
    }
    switch clock.state {
    case "*": return "\(clock.name): selected: chrony steers the clock by it\(offset)."
    case "+": return "\(clock.name): combined with the selected source\(offset)."
    case _ where clock.reach == 0:
      return
        "\(clock.name): reach 0: chrony got no samples from it. Is 'gpsbridge serve --chrony PATH' running with the path of its refclock line, and does the receiver have a fix?"
    case "x":
      let late = clock.offset.map { -$0 } ?? 0
      let advice =
        late > 0.05
        ? " Its time is \(milliseconds(late)) late, as NMEA time is when the sentences come after the second: set 'offset \(seconds(late))' on its refclock line, or add PPS."
        : ""
      return "\(clock.name): a falseticker: chrony's other sources disagree with it\(offset).\(advice)"
    case "~":
      return
        "\(clock.name): too variable: its jitter is beyond chrony's limit\(offset). NMEA time alone jitters by tens of milliseconds: add PPS (serve --pps), or raise 'maxjitter'."
    case "-":
      return
        "\(clock.name): reachable but not combined\(offset): its offset or error is too far from the selected source's; if it is only for monitoring, that is 'noselect' working as meant."
    default:
      return
        "\(clock.name): not usable yet (reach \(String(clock.reach, radix: 8)))\(offset): chrony needs a few samples; ask again in a minute."
    }
  }

  static func milliseconds(_ seconds: Double) -> String {
    let value = (seconds * 1000 * 10).rounded() / 10
    return "\(value) ms"
  }

  static func seconds(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    return "\(rounded)"
  }

  /// Why asking chrony failed.
  public enum Failure: Error, Equatable, CustomStringConvertible {
    /// `chronyc` is not installed.
    case noChronyc
    /// chronyc answered with an error (no chronyd there, or no right to its socket).
    case chronycFailed(control: String, message: String)

    public var description: String {
      switch self {
      case .noChronyc: "chronyc is not installed (Debian: chrony): it is how gpsbridge asks chrony what it makes of its time."
      case .chronycFailed(let control, let message):
        "chronyc could not ask chrony at \(control): \(message.isEmpty ? "no answer" : message). Is chronyd running, and may this user use its command socket (root or the _chrony user)?"
      }
    }
  }

  /// chrony's command socket on Debian.
  public static let defaultControl = "/run/chrony/chronyd.sock"

  /// Where chronyc is installed, if it is.
  static var chronyc: String? { ["/usr/bin/chronyc", "/usr/sbin/chronyc"].first { access($0, X_OK) == 0 } }

  /// Whether chronyc is installed: without it chrony cannot be asked.
  public static var isChronycInstalled: Bool { chronyc != nil }

  /// Asks the chronyd at `control` (its command socket, as `chronyc -h` takes it) for its
  /// sources. Blocking, for up to 10 s: call it from a thread of its own.
  public static func ask(control: String = defaultControl) throws(Failure) -> ChronyCheck {
    guard let chronyc else { throw .noChronyc }
    guard let outcome = ChildProcess.run(chronyc, ["-n", "-c", "-h", control, "sources"], timeout: 10) else { throw .noChronyc }
    // (chronyc may exit 0 having printed only an error, such as "506 Cannot talk to daemon".)
    guard outcome.status == 0, !outcome.output.isEmpty || outcome.error.isEmpty else {
      let message =
        outcome.error.split(separator: "\n").first.map(String.init) ?? (outcome.status == nil ? "it did not answer in 10 s" : "")
      throw .chronycFailed(control: control, message: message)
    }
    var check = ChronyCheck(csv: outcome.output)
    if let selection = ChildProcess.run(chronyc, ["-n", "-c", "-h", control, "selectdata"], timeout: 10), selection.status == 0 {
      check.readSelectData(selection.output)
    }
    return check
  }
}
