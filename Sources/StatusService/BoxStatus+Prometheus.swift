extension BoxStatus {
  /// The status in Prometheus's text exposition format (version 0.0.4): every receiver's
  /// series labelled by its device, names as Prometheus's conventions have them
  /// (`gpsbridge_…_total` for counters, base units: seconds, bytes).
  package var prometheusText: String {
    var text = PrometheusText()
    text.family("gpsbridge_build_info", .gauge, "The running gpsbridge's version (always 1).")
    text.sample("gpsbridge_build_info", [("version", version)], 1)
    text.family("gpsbridge_uptime_seconds", .gauge, "Seconds since serve started.")
    text.sample("gpsbridge_uptime_seconds", [], uptime)

    text.family("gpsbridge_gpsd_clients", .gauge, "gpsd clients connected now.")
    text.sample("gpsbridge_gpsd_clients", [], gpsd.clients)
    text.family("gpsbridge_gpsd_watchers", .gauge, "gpsd clients watching now.")
    text.sample("gpsbridge_gpsd_watchers", [], gpsd.watchers)
    text.family("gpsbridge_gpsd_connections_total", .counter, "gpsd client connections accepted.")
    text.sample("gpsbridge_gpsd_connections_total", [], gpsd.connections)
    text.family("gpsbridge_gpsd_clients_dropped_total", .counter, "gpsd clients closed for not reading, idling or want of room.")
    text.sample("gpsbridge_gpsd_clients_dropped_total", [], gpsd.dropped)
    text.family("gpsbridge_http_clients", .gauge, "Status page clients connected now, event streams included.")
    text.sample("gpsbridge_http_clients", [], http.clients)
    text.family("gpsbridge_http_streams", .gauge, "Status pages following the live event stream now.")
    text.sample("gpsbridge_http_streams", [], http.streams)
    text.family("gpsbridge_http_connections_total", .counter, "HTTP connections accepted.")
    text.sample("gpsbridge_http_connections_total", [], http.connections)
    text.family("gpsbridge_http_requests_total", .counter, "Complete HTTP requests answered.")
    text.sample("gpsbridge_http_requests_total", [], http.requests)
    text.family("gpsbridge_http_clients_dropped_total", .counter, "HTTP clients closed for a bad request, a timeout or not reading.")
    text.sample("gpsbridge_http_clients_dropped_total", [], http.dropped)

    receiverSeries(into: &text)
    timeSeries(into: &text)
    correctionSeries(into: &text)
    return text.text
  }

  private func correctionSeries(into text: inout PrometheusText) {
    guard !corrections.isEmpty else { return }
    func each(_ name: String, _ type: PrometheusText.Kind, _ help: String, _ value: (CorrectionsStatus) -> Double?) {
      text.family(name, type, help)
      for stream in corrections { if let value = value(stream) { text.sample(name, [("device", stream.device)], value) } }
    }
    each("gpsbridge_corrections_connected", .gauge, "1 while the NTRIP stream is connected.") { $0.connected ? 1 : 0 }
    each("gpsbridge_corrections_bytes_per_second", .gauge, "The correction stream's rate lately.") { $0.bytesPerSecond }
    each("gpsbridge_corrections_forwarded_total", .counter, "RTCM 3 frames written to the receiver.") { Double($0.forwarded) }
    each("gpsbridge_corrections_dropped_total", .counter, "Whole frames dropped: the receiver's link was full or it was away.") {
      Double($0.dropped)
    }
    each("gpsbridge_corrections_last_frame_age_seconds", .gauge, "Seconds since the last correction frame.") { $0.lastFrameAge }
    each("gpsbridge_corrections_station_distance_meters", .gauge, "From the reference station to the receiver.") { $0.stationDistance }
    text.family("gpsbridge_corrections_messages_total", .counter, "RTCM 3 frames received, by message type.")
    for stream in corrections {
      for (type, count) in stream.messageTypes.sorted(by: { $0.key < $1.key }) {
        text.sample("gpsbridge_corrections_messages_total", [("device", stream.device), ("type", type)], count)
      }
    }
    text.family("gpsbridge_corrections_rejects_total", .counter, "RTCM 3 frames thrown away, by reason.")
    for stream in corrections {
      for (reason, count) in stream.rejects.sorted(by: { $0.key < $1.key }) {
        text.sample("gpsbridge_corrections_rejects_total", [("device", stream.device), ("reason", reason)], count)
      }
    }
  }

  private func receiverSeries(into text: inout PrometheusText) {
    func each(_ name: String, _ type: PrometheusText.Kind, _ help: String, _ value: (ReceiverStatus) -> Double?) {
      let values = receivers.compactMap { receiver in value(receiver).map { (receiver.device, $0) } }
      guard !values.isEmpty else { return }
      text.family(name, type, help)
      for (device, value) in values { text.sample(name, [("device", device)], value) }
    }
    each("gpsbridge_receiver_up", .gauge, "1 while the receiver is read, 0 while it is away.") { $0.state == "reading" ? 1 : 0 }
    each("gpsbridge_receiver_epochs_total", .counter, "Receiver epochs (fixes) made.") { Double($0.epochs) }
    each("gpsbridge_receiver_bytes_total", .counter, "Bytes read from the receiver.") { Double($0.bytes) }
    if !receivers.isEmpty {
      text.family("gpsbridge_receiver_messages_total", .counter, "Sentences and frames taken, by protocol.")
      for receiver in receivers {
        for (name, count) in [("nmea", receiver.sentences), ("ubx", receiver.ubxFrames), ("rtcm3", receiver.rtcm3Frames)] {
          text.sample("gpsbridge_receiver_messages_total", [("device", receiver.device), ("protocol", name)], count)
        }
      }
      text.family("gpsbridge_receiver_rejects_total", .counter, "Sentences and frames thrown away, by reason.")
      for receiver in receivers {
        for (reason, count) in receiver.rejects.sorted(by: { $0.key < $1.key }) {
          text.sample("gpsbridge_receiver_rejects_total", [("device", receiver.device), ("reason", reason)], count)
        }
      }
    }
    each("gpsbridge_receiver_fix_mode", .gauge, "The latest epoch's fix: 0 none, 2 for 2D, 3 for 3D.") { receiver in
      receiver.fix.map { $0.mode == "3D" ? 3 : $0.mode == "2D" ? 2 : 0 }
    }
    each("gpsbridge_receiver_satellites_used", .gauge, "Satellites used in the latest fix.") {
      $0.fix == nil ? nil : Double($0.satellitesUsed)
    }
    each("gpsbridge_receiver_satellites_seen", .gauge, "Satellites in view in the latest epoch.") {
      $0.fix == nil ? nil : Double($0.satellites.count)
    }
    each("gpsbridge_receiver_epoch_rate_hertz", .gauge, "Epochs a second, by the receiver's own times.") { $0.rate }
    // In baud, as serial lines are spoken of (promtool refuses a name in bits).
    each("gpsbridge_receiver_line_baud", .gauge, "The serial line's speed, in baud.") { $0.baud.map(Double.init) }
    each("gpsbridge_receiver_epoch_bytes", .gauge, "Bytes the receiver sends an epoch, lately.") { $0.bytesPerEpoch }
    each("gpsbridge_receiver_link_capacity_epoch_bytes", .gauge, "Bytes the line can carry an epoch at its speed and rate.") {
      $0.linkBytesPerEpoch
    }
    each("gpsbridge_receiver_last_epoch_age_seconds", .gauge, "Seconds since the latest epoch.") { $0.lastEpochAge }
    each("gpsbridge_receiver_horizontal_accuracy_meters", .gauge, "The latest fix's horizontal accuracy.") {
      $0.fix?.horizontalAccuracy
    }
    integritySeries(into: &text)
    let latencyName = "gpsbridge_receiver_report_latency_seconds"
    if !receivers.isEmpty {
      text.family(latencyName, .histogram, "From an epoch's last byte read to its report to the gpsd clients.")
      for receiver in receivers {
        let device = ("device", receiver.device)
        for (bound, count) in receiver.latency.cumulative {
          text.sample(latencyName + "_bucket", [device, ("le", PrometheusText.number(bound))], count)
        }
        text.sample(latencyName + "_bucket", [device, ("le", "+Inf")], receiver.latency.count)
        text.sample(latencyName + "_sum", [device], receiver.latency.sum)
        text.sample(latencyName + "_count", [device], receiver.latency.count)
      }
    }
  }

  /// What each receiver says of its signals: one series per state, 1 for the one it is in
  /// (Prometheus's way with enums), the jamming indicator, and 1 while anything alarms.
  private func integritySeries(into text: inout PrometheusText) {
    let said = receivers.compactMap { receiver in receiver.integrity.map { (receiver.device, $0) } }
    guard !said.isEmpty else { return }
    let states: [(String, String, [String], (IntegrityStatus) -> String)] = [
      (
        "gpsbridge_receiver_jamming_state", "The receiver's jamming state, as it says it.", ["unknown", "ok", "warning", "critical"],
        \.jamming
      ),
      (
        "gpsbridge_receiver_spoofing_state", "The receiver's spoofing state, as it says it.", ["unknown", "none", "indicated", "affirmed"],
        \.spoofing
      ),
      (
        "gpsbridge_receiver_antenna_state", "The receiver's antenna, as it says it.", ["initializing", "unknown", "ok", "short", "open"],
        \.antenna
      ),
    ]
    for (name, help, names, value) in states {
      text.family(name, .gauge, help)
      for (device, integrity) in said {
        for state in names { text.sample(name, [("device", device), ("state", state)], value(integrity) == state ? 1 : 0) }
      }
    }
    text.family("gpsbridge_receiver_jamming_indicator", .gauge, "Continuous-wave interference the receiver sees, 0 to 255.")
    for (device, integrity) in said {
      if let indicator = integrity.jammingIndicator { text.sample("gpsbridge_receiver_jamming_indicator", [("device", device)], indicator) }
    }
    text.family(
      "gpsbridge_receiver_interference", .gauge,
      "1 while the receiver is spoofed (by its word or gpsbridge's rules), critically jammed, or its antenna short.")
    for (device, integrity) in said {
      text.sample("gpsbridge_receiver_interference", [("device", device)], integrity.alarms.isEmpty ? 0 : 1)
    }
  }

  private func timeSeries(into text: inout PrometheusText) {
    func each(_ name: String, _ type: PrometheusText.Kind, _ help: String, _ value: (TimeServiceStatus) -> Double?) {
      let values = timeService.compactMap { feed in value(feed).map { (feed.device, $0) } }
      guard !values.isEmpty else { return }
      text.family(name, type, help)
      for (device, value) in values { text.sample(name, [("device", device)], value) }
    }
    each("gpsbridge_time_feeding", .gauge, "1 while the receiver's time feeds the clock, 0 while it is held back.") {
      $0.feeding ? 1 : 0
    }
    each("gpsbridge_time_samples_measured_total", .counter, "Time samples measured against the system clock.") { Double($0.samples) }
    each("gpsbridge_time_samples_sent_total", .counter, "Time samples sent to chrony.") { $0.sent.map(Double.init) }
    each("gpsbridge_time_samples_dropped_total", .counter, "Time samples chrony's socket did not take.") { $0.dropped.map(Double.init) }
    each("gpsbridge_time_offset_seconds", .gauge, "How late the receiver's time arrives, by the system clock (median).") {
      $0.offset
    }
    each("gpsbridge_time_jitter_seconds", .gauge, "The spread of that delay.") { $0.jitter }
    guard let chrony else { return }
    text.family("gpsbridge_chrony_up", .gauge, "1 when chrony answered the last time it was asked.")
    text.sample("gpsbridge_chrony_up", [], chrony.error == nil ? 1 : 0)
    guard !chrony.referenceClocks.isEmpty else { return }
    text.family(
      "gpsbridge_chrony_refclock_reach", .gauge, "chrony's reach register of each reference clock (255: all of the last 8 polls).")
    for clock in chrony.referenceClocks { text.sample("gpsbridge_chrony_refclock_reach", [("refclock", clock.name)], clock.reach) }
    text.family("gpsbridge_chrony_refclock_selected", .gauge, "1 for the reference clock chrony steers the clock by.")
    for clock in chrony.referenceClocks {
      text.sample("gpsbridge_chrony_refclock_selected", [("refclock", clock.name)], clock.state == "selected" ? 1 : 0)
    }
    text.family("gpsbridge_chrony_refclock_state", .gauge, "What chrony makes of each reference clock (the state's series is 1).")
    for clock in chrony.referenceClocks {
      text.sample("gpsbridge_chrony_refclock_state", [("refclock", clock.name), ("state", clock.state)], 1)
    }
    let offsets = chrony.referenceClocks.compactMap { clock in clock.offset.map { (clock.name, $0) } }
    if !offsets.isEmpty {
      text.family("gpsbridge_chrony_refclock_offset_seconds", .gauge, "chrony's measured offset of each reference clock's last sample.")
      for (name, offset) in offsets { text.sample("gpsbridge_chrony_refclock_offset_seconds", [("refclock", name)], offset) }
    }
  }
}

/// Prometheus's text format, written a family at a time.
struct PrometheusText {
  enum Kind: String {
    case counter, gauge, histogram
  }

  private(set) var text = ""

  mutating func family(_ name: String, _ kind: Kind, _ help: String) {
    text += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n"
  }

  mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
    text += name
    if !labels.isEmpty {
      text += "{" + labels.map { "\($0.0)=\"\(Self.escaped($0.1))\"" }.joined(separator: ",") + "}"
    }
    text += " " + Self.number(value) + "\n"
  }

  mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Int) {
    sample(name, labels, Double(value))
  }

  /// A value as Prometheus reads it: integers without a fraction, `NaN`, `+Inf`.
  static func number(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return "\(value)"
  }

  /// A label value with `\`, `"` and line ends escaped.
  static func escaped(_ value: String) -> String {
    var escaped = ""
    for character in value {
      switch character {
      case "\\": escaped += "\\\\"
      case "\"": escaped += "\\\""
      case "\n": escaped += "\\n"
      default: escaped.append(character)
      }
    }
    return escaped
  }
}
