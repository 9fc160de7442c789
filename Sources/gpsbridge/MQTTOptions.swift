import Automation

/// Where regions, visits and locations go on MQTT (`--mqtt`), and how often locations go
/// (`--mqtt-interval`): the same options on `run` and `serve`.
struct MQTTOptions: Equatable {
  var address: MQTTAddress?
  var intervalSeconds: Double = 10
  var intervalGiven = false

  /// `--mqtt-interval` alone is a mistake worth saying.
  func check(topic: HelpTopic) throws(UsageError) {
    if intervalGiven, address == nil { throw UsageError(message: "--mqtt-interval goes with --mqtt: give --mqtt too.", topic: topic) }
  }

  /// The publisher's configuration, when MQTT was asked for.
  var configuration: MQTTPublisher.Configuration? {
    address.map { MQTTPublisher.Configuration(address: $0, interval: .milliseconds(Int(intervalSeconds * 1000))) }
  }

  static func options(topic: HelpTopic) -> [CommandOption<MQTTOptions>] {
    [
      CommandOption(
        names: ["--mqtt"], value: "<url>",
        help:
          "Publish to an MQTT broker: mqtt://[USER:PASSWORD@]HOST[:1883]/PREFIX. A Home Assistant device tracker (home, not_home or the region), and every action as a JSON line on PREFIX/DEVICE/actions; region and visit events at QoS 1."
      ) { draft, value throws(UsageError) in
        do {
          draft.address = try MQTTAddress(parsing: value ?? "")
        } catch {
          throw UsageError(
            message:
              "--mqtt takes mqtt://[USER:PASSWORD@]HOST[:PORT]/PREFIX, like mqtt://localhost/gpsbridge; '\(withoutCredentials(value ?? ""))': \(error).",
            topic: topic)
        }
      },
      CommandOption(
        names: ["--mqtt-interval"], value: "<seconds>", help: "With --mqtt: send a location at most every <seconds>.", defaultValue: "10"
      ) { draft, value throws(UsageError) in
        guard let value, let seconds = Double(value), seconds >= 0, seconds <= 3600 else {
          throw UsageError(message: "--mqtt-interval takes seconds from 0 to 3600, like 10; got '\(value ?? "")'.", topic: topic)
        }
        draft.intervalSeconds = seconds
        draft.intervalGiven = true
      }.attached(to: "--mqtt"),
    ]
  }
}

/// `url` with what stands before its `@` left out (`mqtt://…@broker/a`): a usage error is
/// printed, perhaps into a log, and must not say a password.
func withoutCredentials(_ url: String) -> String {
  let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
  guard parts.count >= 3, parts[0].hasSuffix(":"), parts[1].isEmpty, let at = parts[2].lastIndex(of: "@") else { return url }
  return ([String(parts[0]), "", "…" + parts[2][at...]] + parts.dropFirst(3).map(String.init)).joined(separator: "/")
}
