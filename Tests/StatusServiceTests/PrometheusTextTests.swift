import Testing

@testable import StatusService

/// The metrics in Prometheus's text format: what Prometheus itself reads is checked by the
/// scrape test; these pin the format's corners.
struct PrometheusTextTests {
  static let receiver = ReceiverStatus(
    device: #"/dev/tty"odd"\name"#, state: "reading", protocols: "NMEA", baud: 9600, rate: 1, epochs: 12, bytes: 6000,
    sentences: 80, ubxFrames: 0, rtcm3Frames: 0, bytesPerEpoch: 500, linkBytesPerEpoch: 960, rejects: ["bad checksum": 2],
    lastEpochAge: 0.25,
    fix: FixStatus(
      mode: "3D", quality: "GPS", time: nil, latitude: 47, longitude: 8, altitude: 400, horizontalAccuracy: 3, verticalAccuracy: 5,
      speed: 0, course: nil, satellitesUsed: 7, hdop: 1),
    satellites: [SatelliteStatus(constellation: "gps", prn: 5, elevation: 40, azimuth: 100, snr: 40, used: true)],
    latency: {
      var histogram = LatencyHistogram()
      histogram.observe(0.0003)
      histogram.observe(0.002)
      histogram.observe(3)
      return histogram
    }())

  static let status = BoxStatus(
    version: "gpsbridge 0.1.0", uptime: 12.5, gpsd: .init(clients: 2, watchers: 1, connections: 5, dropped: 1),
    http: .init(connections: 4, clients: 1, streams: 0, requests: 3, dropped: 0), receivers: [receiver], timeService: [], chrony: nil)

  @Test func labelValuesAreEscaped() {
    #expect(Self.status.prometheusText.contains(#"gpsbridge_receiver_epochs_total{device="/dev/tty\"odd\"\\name"} 12"#))
  }

  @Test func theHistogramIsCumulativeWithAnInfiniteBucket() {
    let text = Self.status.prometheusText
    #expect(text.contains(#"gpsbridge_receiver_report_latency_seconds_bucket{device="/dev/tty\"odd\"\\name",le="0.00025"} 0"#))
    #expect(text.contains(#"gpsbridge_receiver_report_latency_seconds_bucket{device="/dev/tty\"odd\"\\name",le="0.0005"} 1"#))
    #expect(text.contains(#"gpsbridge_receiver_report_latency_seconds_bucket{device="/dev/tty\"odd\"\\name",le="0.0025"} 2"#))
    #expect(text.contains(#"gpsbridge_receiver_report_latency_seconds_bucket{device="/dev/tty\"odd\"\\name",le="0.25"} 2"#))
    #expect(text.contains(#"gpsbridge_receiver_report_latency_seconds_bucket{device="/dev/tty\"odd\"\\name",le="+Inf"} 3"#))
    #expect(text.contains(#"gpsbridge_receiver_report_latency_seconds_count{device="/dev/tty\"odd\"\\name"} 3"#))
  }

  @Test func everyFamilyHasHelpAndTypeOnceAndCountersEndInTotal() {
    let lines = Self.status.prometheusText.split(separator: "\n")
    let types = lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ") }
    #expect(Set(types.map { $0[2] }).count == types.count)
    for type in types where type[3] == "counter" { #expect(type[2].hasSuffix("_total"), "\(type)") }
    #expect(lines.filter { $0.hasPrefix("# HELP ") }.count == types.count)
    #expect(Self.status.prometheusText.hasSuffix("\n"))
  }

  /// What a receiver says of its signals: one series per state (1 for the one it is in), the
  /// indicator, and 1 while anything alarms; a receiver that said nothing has none of them.
  @Test func theSignalsStatesAreOneSeriesEachAndTheAlarmOne() {
    var status = Self.status
    #expect(!status.prometheusText.contains("gpsbridge_receiver_spoofing_state"))
    status.receivers[0].device = "/dev/ttyACM0"
    status.receivers[0].integrity = IntegrityStatus(
      jamming: "ok", jammingSource: "MON-HW", spoofing: "indicated", spoofingSource: "NAV-STATUS", antenna: "ok", antennaSource: "MON-HW",
      jammingIndicator: 12, alarms: ["spoofing indicated (NAV-STATUS)"])
    let text = status.prometheusText
    #expect(text.contains(#"gpsbridge_receiver_spoofing_state{device="/dev/ttyACM0",state="indicated"} 1"#))
    #expect(text.contains(#"gpsbridge_receiver_spoofing_state{device="/dev/ttyACM0",state="none"} 0"#))
    #expect(text.contains(#"gpsbridge_receiver_jamming_state{device="/dev/ttyACM0",state="ok"} 1"#))
    #expect(text.contains(#"gpsbridge_receiver_antenna_state{device="/dev/ttyACM0",state="ok"} 1"#))
    #expect(text.contains(#"gpsbridge_receiver_jamming_indicator{device="/dev/ttyACM0"} 12"#))
    #expect(text.contains(#"gpsbridge_receiver_interference{device="/dev/ttyACM0"} 1"#))
  }
}
