import Corrections

/// What `gpsbridge ntrip` was asked to do.
struct NtripOptions: Equatable {
  var host = ""
  var port = NTRIPAddress.standardPort
  var nearLatitude: Double?
  var nearLongitude: Double?
  var json = false

  struct Draft {
    var caster: String?
    var nearLatitude: Double?
    var nearLongitude: Double?
    var json = false
  }

  static let spec = CommandSpec<Draft>(
    topic: .ntrip,
    overview: "List an NTRIP caster's mountpoints.",
    discussion: """
      Reads the caster's sourcetable and lists each mountpoint with its format, its
      messages, its distance (with --near) and whether it wants the receiver's position
      (a GGA) sent up, as a VRS does. Pick one for serve --ntrip.
      """,
    positionalSynopsis: "<host[:port]>",
    arguments: [("<host[:port]>", "The caster (port 2101 unless given).")],
    options: [
      CommandOption(names: ["--near"], value: "<lat,lon>", help: "Also say each mountpoint's distance from here (degrees).") {
        draft, value throws(UsageError) in
        let parts = (value ?? "").split(separator: ",").compactMap { Double($0) }
        guard parts.count == 2, abs(parts[0]) <= 90, abs(parts[1]) <= 180 else {
          throw UsageError(message: "--near takes LATITUDE,LONGITUDE in degrees, like 52.52,13.40; got '\(value ?? "")'.", topic: .ntrip)
        }
        (draft.nearLatitude, draft.nearLongitude) = (parts[0], parts[1])
      },
      .flag("--json", \.json, help: "The mountpoints as JSON lines."),
    ],
    examples: ["gpsbridge ntrip caster.example.org", "gpsbridge ntrip caster.example.org:2102 --near 52.52,13.40"],
    positional: { draft, caster throws(UsageError) in
      guard draft.caster == nil else { throw UsageError(message: "'ntrip' takes one caster; '\(caster)' is one too many.", topic: .ntrip) }
      draft.caster = caster
    })

  static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var draft = Draft()
    guard try spec.parse(arguments, into: &draft) else { return .help(.ntrip) }
    guard let caster = draft.caster, let address = NTRIPAddress(parsing: "ntrip://\(caster)/table") else {
      throw UsageError(message: "Missing the caster: give HOST or HOST:PORT, like caster.example.org:2101.", topic: .ntrip)
    }
    return .ntrip(
      NtripOptions(
        host: address.host, port: address.port, nearLatitude: draft.nearLatitude, nearLongitude: draft.nearLongitude, json: draft.json))
  }
}
