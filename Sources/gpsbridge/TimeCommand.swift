import TimeService

/// What `gpsbridge time` was asked to do.
struct TimeOptions: Equatable {
  var control = ChronyCheck.defaultControl
  var json = false

  static let spec = CommandSpec<TimeOptions>(
    topic: .time,
    overview: "Check that chrony really uses the receiver's time.",
    discussion: """
      Asks chrony (through chronyc) what it makes of each of its reference clocks:
      selected, combined, a falseticker, too variable, or not reachable, and says
      what to do when it is not used. Run it after setting up serve --chrony, and
      from a timer: it exits 0 only while chrony steers the clock by a reference
      clock.
      """,
    options: [
      CommandOption(
        names: ["--chrony-control"], value: "<path>", help: "chrony's command socket, as chronyc -h takes it.",
        defaultValue: ChronyCheck.defaultControl
      ) { options, value in options.control = value ?? ChronyCheck.defaultControl },
      .flag("--json", \.json, help: "The findings as one JSON object."),
    ],
    examples: ["sudo gpsbridge time", "gpsbridge time --chrony-control /run/chrony/chronyd.sock --json"])

  static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var options = TimeOptions()
    guard try spec.parse(arguments, into: &options) else { return .help(.time) }
    return .time(options)
  }
}
