/// The whole box at one moment: what `/status.json` carries, the page draws and `/metrics`
/// counts. Plain values, made by ``StatusServer`` from its receivers, its gpsd server, its
/// time feeds and chrony's view.
package struct BoxStatus: Codable, Sendable, Equatable {
  package var version: String
  /// Seconds since `serve` started.
  package var uptime: Double
  package var gpsd: GPSDClients
  package var http: HTTPClients
  package var receivers: [ReceiverStatus]
  package var timeService: [TimeServiceStatus]
  /// What chrony makes of its reference clocks, when it was asked.
  package var chrony: ChronyStatus?
  /// The correction streams (NTRIP), one for each receiver that has one.
  package var corrections: [CorrectionsStatus] = []

  package struct GPSDClients: Codable, Sendable, Equatable {
    package var clients: Int
    package var watchers: Int
    package var connections: Int
    package var dropped: Int
  }

  package struct HTTPClients: Codable, Sendable, Equatable {
    package var connections: Int
    package var clients: Int
    package var streams: Int
    package var requests: Int
    package var dropped: Int
  }
}

/// One receiver: its link, its latest epoch and sky, and what was thrown away.
package struct ReceiverStatus: Codable, Sendable, Equatable {
  package var device: String
  /// "reading", or why not ("paused: … unplugged").
  package var state: String
  /// "NMEA", "UBX", "NMEA + UBX".
  package var protocols: String
  package var baud: Int?
  /// Epochs a second, learned from the receiver's own times.
  package var rate: Double?
  package var epochs: Int
  package var bytes: Int
  package var sentences: Int
  package var ubxFrames: Int
  package var rtcm3Frames: Int
  /// Bytes an epoch lately, and what the line could carry in one at its speed and rate.
  package var bytesPerEpoch: Double?
  package var linkBytesPerEpoch: Double?
  package var rejects: [String: Int]
  /// Seconds since the latest epoch arrived.
  package var lastEpochAge: Double?
  package var fix: FixStatus?
  package var satellites: [SatelliteStatus]
  package var latency: LatencyHistogram
  /// What the receiver says of jamming, spoofing and its antenna, once it has said any.
  package var integrity: IntegrityStatus? = nil

  package var satellitesUsed: Int { fix?.satellitesUsed ?? satellites.filter(\.used).count }
}

/// What a receiver says of its signals' integrity, by name, each with the message that said it.
package struct IntegrityStatus: Codable, Sendable, Equatable {
  /// "unknown", "ok", "warning", "critical".
  package var jamming: String
  package var jammingSource: String?
  /// "unknown", "none", "indicated", "affirmed".
  package var spoofing: String
  package var spoofingSource: String?
  /// "initializing", "unknown", "ok", "short", "open".
  package var antenna: String
  package var antennaSource: String?
  /// Continuous-wave interference, 0 to 255 (gpsd's `jam`).
  package var jammingIndicator: Int?
  /// What a person should be told at once, in words: spoofing indicated or affirmed, critical
  /// jamming, an antenna short (what stops the time service). Empty when none.
  package var alarms: [String]
  /// What is worth a look: jamming the receiver copes with (warning), an antenna reported open
  /// (a passive antenna always is).
  package var warnings: [String] = []
}

/// The latest epoch.
package struct FixStatus: Codable, Sendable, Equatable {
  /// "none", "2D", "3D".
  package var mode: String
  /// "no fix", "GPS", "DGPS", "RTK float", "RTK fixed", ….
  package var quality: String
  /// The receiver's time, ISO 8601, when it gave a date.
  package var time: String?
  package var latitude: Double?
  package var longitude: Double?
  package var altitude: Double?
  /// Metres, 95 %-ish as the receiver or gpsd's model gives them.
  package var horizontalAccuracy: Double?
  package var verticalAccuracy: Double?
  package var speed: Double?
  package var course: Double?
  package var satellitesUsed: Int?
  package var hdop: Double?
}

/// A satellite in view.
package struct SatelliteStatus: Codable, Sendable, Equatable {
  package var constellation: String
  package var prn: Int
  package var elevation: Int?
  package var azimuth: Int?
  package var snr: Int?
  package var used: Bool
}

/// One receiver's time feed.
package struct TimeServiceStatus: Codable, Sendable, Equatable {
  package var device: String
  package var feeding: Bool
  package var notice: String?
  /// Samples measured against the system clock so far.
  package var samples: Int
  /// The NMEA time's delay behind the system clock and its jitter, seconds.
  package var offset: Double?
  package var jitter: Double?
  package var sent: Int?
  package var dropped: Int?
}

/// chrony's view of its reference clocks.
package struct ChronyStatus: Codable, Sendable, Equatable {
  package var error: String?
  package var referenceClocks: [Clock]
  /// Whether chrony steers the clock by one of them.
  package var usesReferenceClock: Bool
  package var findings: [String]

  package struct Clock: Codable, Sendable, Equatable {
    package var name: String
    /// "selected", "combined", "not combined", "falseticker", "too variable", "unusable".
    package var state: String
    package var reach: Int
    package var offset: Double?
    package var noselect: Bool
  }
}

/// A receiver's correction stream.
package struct CorrectionsStatus: Codable, Sendable, Equatable {
  package var device: String
  /// The caster and mountpoint, without credentials.
  package var source: String
  package var connected: Bool
  package var state: String
  package var bytesPerSecond: Double
  package var forwarded: Int
  package var dropped: Int
  /// Frames by message number ("1005", "1074"…).
  package var messageTypes: [String: Int]
  package var rejects: [String: Int]
  package var lastFrameAge: Double?
  package var stationID: Int?
  /// Metres from the reference station to the receiver.
  package var stationDistance: Double?
  package var ggaSent: Int
}
