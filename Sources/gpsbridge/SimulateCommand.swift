import NMEASimulation

/// What `gpsbridge simulate` was asked to do.
struct SimulateOptions: Equatable {
  var profile = ReceiverProfile.ublox
  var duration: Double?
  var rate: Double?
  var output = "-"
  var pty: String?
  var seed: UInt64 = 7
  var noise = 0.0
  /// Whether epochs are stamped with the present time and sent in step with it (`--live`).
  var live = false
  /// With `live`: how long after the second each burst starts, milliseconds.
  var latency = 150
  /// With `--pty`: a u-blox read on its USB port (`--usb`), where only that port's settings
  /// change what it sends, as a USB receiver on /dev/ttyACM0 is.
  var usb = false
  /// With `--pty` and the rtk profile: corrections from a radio of the rover's own (`--radio`).
  var radio = false
  /// A reference station's RTCM 3 stream instead of a receiver's NMEA (`--rtcm`).
  var rtcm = false
  /// Jamming or spoofing from a moment of the drive on (`--jam`, `--spoof`).
  var attack: Attack?

  static let spec = CommandSpec<SimulateOptions>(
    topic: .simulate,
    overview: "Write what a simulated GPS receiver would send.",
    discussion: """
      The receiver drives the demo route (out of a depot, over a bridge, a stop at a shop,
      a tunnel, home) and, for longer durations, carries on driving. The output is a
      capture for --replay and gpsd's gpsfake, or, with --pty, a pseudo-terminal that
      other programs (gpsd, your own) open as if it were a USB receiver. The same options
      always give the same bytes.
      """,
    options: [
      CommandOption(
        names: ["--profile"], value: "<name>",
        help: "The receiver: " + ReceiverProfile.all.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ") + ".",
        defaultValue: "ublox"
      ) { options, value throws(UsageError) in
        guard let value, let profile = ReceiverProfile.named(value) else {
          throw UsageError(
            message: "--profile takes one of \(ReceiverProfile.all.map(\.name).joined(separator: ", ")); got '\(value ?? "")'.",
            topic: .simulate)
        }
        options.profile = profile
      }.completing(.words(ReceiverProfile.all.map(\.name))),
      CommandOption(
        names: ["--duration"], value: "<seconds>", help: "How long the journey lasts.",
        defaultValue: "the demo drive, \(Int(Route.demoDrive.duration)) s"
      ) { options, value throws(UsageError) in
        guard let value, let seconds = Double(value), seconds > 0, seconds <= 30 * 86_400 else {
          throw UsageError(message: "--duration takes a number of seconds up to 30 days, like 600; got '\(value ?? "")'.", topic: .simulate)
        }
        options.duration = seconds
      },
      CommandOption(names: ["--rate"], value: "<hz>", help: "Epochs per second.", defaultValue: "the profile's") {
        options, value throws(UsageError) in
        guard let value, let rate = Double(value), rate >= 0.1, rate <= 50 else {
          throw UsageError(message: "--rate takes epochs per second from 0.1 to 50, like 10; got '\(value ?? "")'.", topic: .simulate)
        }
        options.rate = rate
      },
      CommandOption(names: ["--noise"], value: "<m>", help: "The receiver's position error, metres (1σ).", defaultValue: "0") {
        options, value throws(UsageError) in
        options.noise = try metres("--noise", value ?? "")
      },
      CommandOption(names: ["--seed"], value: "<n>", help: "Seeds the sky and the noise.", defaultValue: "7") {
        options, value throws(UsageError) in
        guard let value, let seed = UInt64(value) else {
          throw UsageError(message: "--seed takes a whole number; got '\(value ?? "")'.", topic: .simulate)
        }
        options.seed = seed
      },
      CommandOption(
        names: ["-o", "--output"], value: "<file>", help: "Where to write the capture, at once ('-' for standard output).",
        defaultValue: "-"
      ) { options, value in
        options.output = value ?? "-"
      }.inGroup("output"),
      CommandOption(
        names: ["--pty"], value: "<link>", help: "Instead, play the receiver in real time on a pseudo-terminal linked at <link>."
      ) { options, value in
        options.pty = value
      }.inGroup("output"),
      .flag(
        "--live", \.live,
        help:
          "With --pty: stamp each epoch with the present UTC time and send it that long after the second (--latency), as a receiver feeding a clock does; runs until stopped."
      ).attached(to: "--pty"),
      CommandOption(
        names: ["--latency"], value: "<ms>", help: "With --live: how late after the second each burst starts.", defaultValue: "150"
      ) { options, value throws(UsageError) in
        guard let value, let milliseconds = Int(value), (0...900).contains(milliseconds) else {
          throw UsageError(message: "--latency takes milliseconds from 0 to 900, like 150; got '\(value ?? "")'.", topic: .simulate)
        }
        options.latency = milliseconds
      }.attached(to: "--live"),
      CommandOption(
        names: ["--usb"], value: nil,
        help:
          "With --pty and a u-blox profile: the receiver is read on its USB port, as on /dev/ttyACM0, where only that port's settings (not UART1's) change what it sends."
      ) { options, _ in options.usb = true }.attached(to: "--pty"),
      CommandOption(
        names: ["--radio"], value: nil,
        help:
          "With --pty and the rtk profile: the rover has corrections from a radio of its own, not over the line: DGPS at once, RTK float after 3 s, RTK fixed after 6 s."
      ) { options, _ in options.radio = true },
      attackOption(
        .jamming, "--jam",
        help:
          "Jam the receiver from <seconds> into the drive on: its signals fade 2 dB-Hz a second (the fix is lost under four satellites), and a u-blox says so in MON-HW (jamming warning, critical 5 s later, its indicator rising)."
      ),
      attackOption(
        .spoofing, "--spoof",
        help:
          "Spoof the receiver from <seconds> into the drive on: its position walks away north at 5 m/s and its time slews 10 ms a second ahead, and a u-blox says so in NAV-STATUS (spoofing indicated, affirmed 10 s later)."
      ),
      .flag(
        "--rtcm", \.rtcm,
        help:
          "Instead of a receiver, a reference station beside the demo drive: RTCM 3 at 1 Hz (1005 with its position, and a GPS MSM4 whose content is synthetic), to feed an NTRIP caster; to --output at once, or to --pty in real time."
      ),
    ],
    examples: [
      "gpsbridge simulate --output drive.nmea",
      "gpsbridge simulate --profile rtk --duration 60 | gpsbridge --replay - --json",
      "gpsbridge simulate --profile sirf --pty /tmp/gps0 & gpsbridge --device /tmp/gps0",
      "gpsbridge simulate --pty /tmp/gps0 --live --latency 150 & gpsbridge serve --device /tmp/gps0 --listen 127.0.0.1:2951 --chrony /tmp/chrony.gps.sock",
      "gpsbridge simulate --rtcm --duration 600 --output base.rtcm",
      "gpsbridge simulate --pty /tmp/gps0 --live --spoof 20 & gpsbridge serve --device /tmp/gps0 --chrony /tmp/chrony.gps.sock",
    ])

  static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var options = SimulateOptions()
    guard try spec.parse(arguments, into: &options) else { return .help(.simulate) }
    if options.rtcm, options.live || options.profile != .ublox || options.rate != nil {
      throw UsageError(
        message: "--rtcm writes a reference station's corrections: it takes no --profile, --rate or --live.", topic: .simulate)
    }
    if options.rtcm, options.attack != nil {
      throw UsageError(message: "--rtcm writes a reference station's corrections: it takes no --jam or --spoof.", topic: .simulate)
    }
    if options.live, options.pty == nil {
      throw UsageError(message: "--live plays in step with the clock, so it needs --pty <link>.", topic: .simulate)
    }
    if options.radio, options.profile != .rtk || options.rtcm || options.pty == nil {
      throw UsageError(message: "--radio gives a live RTK rover its corrections: give --profile rtk and --pty.", topic: .simulate)
    }
    if options.usb, (options.profile != .ublox && options.profile != .ublox8) || options.rtcm {
      throw UsageError(message: "--usb puts a u-blox on its USB port: give --profile ublox or ublox8.", topic: .simulate)
    }
    return .simulate(options)
  }
}

extension SimulateOptions {
  /// One attack a run: `--jam` and `--spoof` together are refused.
  mutating func setAttack(_ attack: Attack) throws(UsageError) {
    if let other = self.attack, other.kind != attack.kind {
      throw UsageError(message: "--jam and --spoof are one attack each: give one of them.", topic: .simulate)
    }
    self.attack = attack
  }
}

/// `--jam` or `--spoof`: an attack of `kind` from the seconds into the drive it names.
private func attackOption(_ kind: Attack.Kind, _ name: String, help: String) -> CommandOption<SimulateOptions> {
  CommandOption(names: [name], value: "<seconds>", help: help) { options, value throws(UsageError) in
    guard let value, let seconds = Double(value), seconds >= 0, seconds <= 30 * 86_400 else {
      throw UsageError(message: "\(name) takes the seconds into the drive it starts at, like 20; got '\(value ?? "")'.", topic: .simulate)
    }
    try options.setAttack(Attack(kind, at: seconds))
  }
}
