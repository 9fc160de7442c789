/// What `gpsbridge devices` was asked to do.
struct DevicesOptions: Equatable {
  var paths: [String] = []
  var json = false

  static let spec = CommandSpec<DevicesOptions>(
    topic: .devices,
    overview: "List serial devices that may be GPS receivers.",
    discussion: """
      Reads /sys/class/tty and /dev/serial/by-id. For each device: its stable path,
      kernel name, USB vendor:product id, the receiver it is known as, and whether you
      may open it (with the fix when you may not).
      """,
    positionalSynopsis: "[<path>...]",
    arguments: [("<path>", "Also describe these paths (a link such as /dev/gps0, or a device the scan does not find).")],
    options: [.flag("--json", \.json, help: "One JSON array of the devices (empty when there are none).")],
    examples: ["gpsbridge devices", "gpsbridge devices /dev/gps0"],
    positional: { options, path in options.paths.append(path) })

  static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var options = DevicesOptions()
    guard try spec.parse(arguments, into: &options) else { return .help(.devices) }
    return .devices(options)
  }
}
