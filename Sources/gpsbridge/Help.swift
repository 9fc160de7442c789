/// Help texts, laid out as swift-argument-parser lays them out.
enum Help {
  static func usage(_ topic: HelpTopic) -> String {
    switch topic {
    case .main:
      "gpsbridge [--device <path> [--baud <rate>] | --gpsd [<host[:port]>] | --replay <file> [--speed <n|max>]] [<options>]"
    case .devices: "gpsbridge devices [<path> ...] [--json]"
    case .record: "gpsbridge record (--device <path> [--baud <rate>] | --gpsd [<host[:port]>]) --output <file> [--duration <seconds>]"
    case .check: "gpsbridge check <file> [--json]"
    }
  }

  static func text(_ topic: HelpTopic) -> String {
    switch topic {
    case .main: main
    case .devices: devices
    case .record: record
    case .check: check
    }
  }

  static let main = """
    OVERVIEW: Read a GPS receiver and print location events.

    With no source, gpsbridge uses the first GPS receiver it finds, else gpsd on
    localhost if it answers, else replays a bundled demo drive in real time.

    USAGE: \(usage(.main))
           gpsbridge <subcommand> [<options>]

    SOURCES:
      --device <path>         A serial receiver: /dev/ttyUSB0, /dev/ttyACM0,
                              /dev/serial/by-id/…, or a udev link such as /dev/gps0.
      --baud <rate|auto>      The receiver's baud rate, or auto to find it. (default: auto)
      --gpsd [<host[:port]>]  A running gpsd. (default: 127.0.0.1:2947)
      --replay <file>         A capture to replay; '-' reads standard input.
      --speed <n|max>         Replay speed: a multiple of real time, or max. (default: 1)

    OPTIONS:
      --json                  One JSON object per line, for other programs (the format
                              is in the README under "Output").
      --heading               Also report headings (course over ground, or HDT/THS).
      --region <id,lat,lon,radius>
                              Monitor a circular region (radius in metres). Repeatable.
      --regions <file>        Monitor the regions in a JSON file: an array of
                              {"identifier", "center": {"latitude", "longitude"}, "radius"}.
      --visits                Report visits: stays of 5 minutes within 100 m.
      --significant-changes   Report a location each time the position moves 500 m.
      --distance-filter <m>   Report locations only this many metres apart. (default: every fix)
      --desired-accuracy <m>  Report only locations at least this accurate. (default: any)
      --once                  Print one location and exit; exit 1 if none comes in 10 s.
      --version               Show the version.
      -h, --help              Show help information.

    SUBCOMMANDS:
      devices                 List serial GPS receivers and whether you may open them.
      record                  Write a live source's raw bytes to a capture file.
      check <file>            Summarize a capture: sentences, errors, fixes, rate.

      See 'gpsbridge help <subcommand>' for detailed help.

    EXAMPLES:
      gpsbridge
      gpsbridge --device /dev/ttyACM0 --json | jq .latitude
      gpsbridge --gpsd --once
      gpsbridge --replay drive.nmea --speed max --region home,47.3769,8.5417,100 --visits

    EXIT STATUS:
      0 success (or a replay that reached its end), 1 a runtime failure, 64 a usage error.
    """

  static let devices = """
    OVERVIEW: List serial devices that may be GPS receivers.

    Reads /sys/class/tty and /dev/serial/by-id. For each device: its stable path,
    kernel name, USB vendor:product id, the receiver it is known as, and whether you
    may open it (with the fix when you may not).

    USAGE: \(usage(.devices))

    ARGUMENTS:
      <path>                  Also describe these paths (a link such as /dev/gps0, or a
                              device the scan does not find).

    OPTIONS:
      --json                  One JSON object per device.
      -h, --help              Show help information.

    EXAMPLES:
      gpsbridge devices
      gpsbridge devices /dev/gps0
    """

  static let record = """
    OVERVIEW: Record a live source's raw bytes to a capture file.

    The file starts with '# Date:' and '# Device:' comments and then holds exactly what
    the receiver sent, so 'gpsbridge --replay' and the test fixtures can use it. Stops
    on Ctrl-C, SIGTERM, or after --duration, leaving a complete file.

    USAGE: \(usage(.record))

    OPTIONS:
      --device <path>         A serial receiver to record.
      --baud <rate|auto>      Its baud rate, or auto. (default: auto)
      --gpsd [<host[:port]>]  Record gpsd's NMEA output. (default: 127.0.0.1:2947)
      -o, --output <file>     Where to write the capture ('-' for standard output).
      --duration <seconds>    Stop after this long. (default: until interrupted)
      -h, --help              Show help information.

    EXAMPLES:
      gpsbridge record --device /dev/ttyUSB0 --output drive.nmea --duration 600
    """

  static let check = """
    OVERVIEW: Summarize a capture file.

    Counts sentences by type and talker, checksum failures and other rejects, fixes
    with and without a position, the time span and the fix rate.

    USAGE: \(usage(.check))

    ARGUMENTS:
      <file>                  The capture to check; '-' reads standard input.

    OPTIONS:
      --json                  The summary as one JSON object.
      -h, --help              Show help information.

    EXAMPLES:
      gpsbridge check drive.nmea
    """
}
