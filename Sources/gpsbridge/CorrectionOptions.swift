import Corrections

/// Where RTK corrections come from (`--ntrip`) and how often the receiver's GGA goes up
/// (`--ntrip-gga`): the same two options on `run` and `serve`.
struct CorrectionOptions: Equatable {
  var ntrip: NTRIPAddress?
  var ggaSeconds: Int?

  /// `--ntrip-gga` alone is a mistake worth saying.
  func check(topic: HelpTopic) throws(UsageError) {
    if ggaSeconds != nil, ntrip == nil { throw UsageError(message: "--ntrip-gga goes with --ntrip: give --ntrip too.", topic: topic) }
  }

  /// The client's configuration, when corrections were asked for.
  var configuration: NTRIPClient.Configuration? {
    ntrip.map { NTRIPClient.Configuration(address: $0, ggaInterval: ggaSeconds.map { .seconds($0) }) }
  }

  static func options(topic: HelpTopic) -> [CommandOption<CorrectionOptions>] {
    [
      CommandOption(
        names: ["--ntrip"], value: "<url>",
        help:
          "RTK corrections for the receiver from an NTRIP caster: ntrip://[USER:PASSWORD@]HOST[:2101]/MOUNTPOINT. Each RTCM 3 frame is checked and written to the receiver whole; the receiver's GGA goes up when the mountpoint wants it."
      ) { draft, value throws(UsageError) in
        guard let value, let address = NTRIPAddress(parsing: value) else {
          throw UsageError(
            message:
              "--ntrip takes ntrip://[USER:PASSWORD@]HOST[:PORT]/MOUNTPOINT, like ntrip://caster.example.org:2101/BASE1; "
              + ntripProblem(value ?? ""),
            topic: topic)
        }
        draft.ntrip = address
      },
      CommandOption(
        names: ["--ntrip-gga"], value: "<seconds>",
        help: "With --ntrip: send the receiver's GGA up every <seconds>, whatever the sourcetable says (a VRS caster needs it)."
      ) { draft, value throws(UsageError) in
        guard let value, let seconds = Int(value), (1...600).contains(seconds) else {
          throw UsageError(message: "--ntrip-gga takes seconds from 1 to 600, like 10; got '\(value ?? "")'.", topic: topic)
        }
        draft.ggaSeconds = seconds
      }.attached(to: "--ntrip"),
    ]
  }
}

/// What is wrong with `value` as an NTRIP address, and what to write instead (its password,
/// if it has one, never said).
func ntripProblem(_ value: String) -> String {
  let shown = "'\(withoutCredentials(value))'"
  let lower = value.lowercased()
  if lower.hasPrefix("https://") || lower.hasPrefix("ntrips://") {
    return "\(shown) asks for TLS, which gpsbridge does not speak to casters: use the caster's plain port (usually 2101) with ntrip://."
  }
  if lower.hasPrefix("http://") {
    return "\(shown) is a web address: write ntrip:// instead of http:// (gpsbridge asks as NTRIP 2, which is HTTP, either way)."
  }
  let afterScheme = lower.hasPrefix("ntrip://") ? String(value.dropFirst("ntrip://".count)) : value
  if !afterScheme.contains("/") || afterScheme.hasSuffix("/") {
    return "\(shown) names no mountpoint: 'gpsbridge ntrip HOST[:PORT]' lists the caster's."
  }
  return "got \(shown)."
}
