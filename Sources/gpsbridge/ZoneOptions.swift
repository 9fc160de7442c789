import GPSLocation

/// What `serve` does with regions and visits, and where they go: the regions files
/// (`--regions`, as `run` reads them), visits (`--visits`, `--visit-dwell`), the one receiver
/// followed (`--regions-device`, else every one), MQTT (`--mqtt`) and webhooks (`--webhook`).
struct ZoneOptions: Equatable {
  var regionFiles: [String] = []
  var visits = false
  var visitDwell: Double?
  var device: String?
  var mqtt = MQTTOptions()
  var webhooks = WebhookOptions()
  /// Where the regions' states are kept across restarts (`--state-dir`): systemd's
  /// `$STATE_DIRECTORY`, else the user's state directory, unless `none`.
  var storage = Monitor.Storage.standard
  /// Whether `--state-dir` was given (a replay's regions are kept only then).
  var storageGiven = false

  /// Whether the engine follows the receivers at all.
  var isEnabled: Bool { !regionFiles.isEmpty || visits || mqtt.address != nil || !webhooks.urls.isEmpty }

  static func options(topic: HelpTopic) -> [CommandOption<ZoneOptions>] {
    [
      CommandOption(
        names: ["--regions"], value: "<file>",
        help:
          "Monitor the regions in a JSON file (as gpsbridge's --regions): entry and exit go to MQTT and to gpsd clients that watch with \"regions\":true."
      ) { draft, value in
        if let value { draft.regionFiles.append(value) }
      }.repeating(),
      .flag("--visits", \.visits, help: "Report visits too: stays of 5 minutes within 100 m."),
      CommandOption(
        names: ["--visit-dwell"], value: "<seconds>", help: "How long a stay must last to be a visit.", defaultValue: "300"
      ) { draft, value throws(UsageError) in
        guard let seconds = Double(value ?? ""), seconds > 0, seconds.isFinite else {
          throw UsageError(message: "--visit-dwell takes a number of seconds, like 300; got '\(value ?? "")'.", topic: topic)
        }
        draft.visitDwell = seconds
      }.attached(to: "--visits"),
      CommandOption(
        names: ["--state-dir"], value: "<dir|none>",
        help:
          "Where the regions' states (and, with --visits, the visit in progress) are kept, so that a restart neither repeats an entry or arrival nor loses an exit or departure that happened while serve was down (none: not kept; a replay's are not kept unless this is given).",
        defaultValue: "$STATE_DIRECTORY, else ~/.local/state/gpsbridge"
      ) { draft, value throws(UsageError) in
        guard let value, !value.isEmpty else {
          throw UsageError(message: "--state-dir takes a directory, or none; got nothing.", topic: topic)
        }
        draft.storage = value == "none" ? .none : .directory(value)
        draft.storageGiven = true
      }.attached(to: "--regions"),
      CommandOption(
        names: ["--regions-device"], value: "<path>", help: "Follow only this receiver for regions and visits.", defaultValue: "every one"
      ) { draft, value in draft.device = value },
    ] + MQTTOptions.options(topic: topic).map { $0.lifted(\ZoneOptions.mqtt) }
      + WebhookOptions.options(topic: topic).map { $0.lifted(\ZoneOptions.webhooks) }
  }
}
