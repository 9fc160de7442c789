import GPSLocation
import Testing

/// Every source error is held to the shape "When things go wrong" writes down: what happened,
/// the thing it happened to, and what to do, once.
struct MessageShapeTests {
  /// One of each, and the thing it names.
  static let samples: [(SourceError, String)] = [
    (.permissionDenied(path: "/dev/ttyACM0"), "/dev/ttyACM0"), (.permissionDenied(path: "/dev/ttyACM0", group: "dialout"), "/dev/ttyACM0"),
    (.noDevice(path: "/dev/ttyACM0"), "/dev/ttyACM0"), (.deviceBusy(path: "/dev/ttyACM0"), "/dev/ttyACM0"),
    (.notASerialDevice(path: "/tmp/file"), "/tmp/file"),
    (.unsupportedBaudRate(path: "/dev/ttyUSB0", rate: 1_000_000, supportedRates: [9600]), "/dev/ttyUSB0"),
    (.deviceFailed(path: "/dev/ttyUSB0", description: "I/O error"), "/dev/ttyUSB0"),
    (.deviceLost(path: "/dev/ttyUSB0", description: "unplugged"), "/dev/ttyUSB0"),
    (.deviceLost(path: "/dev/ttyUSB0", description: nil), "/dev/ttyUSB0"),
    (.silentDevice(path: "/dev/ttyUSB0", seconds: 5), "/dev/ttyUSB0"), (.noNMEAAtRate(path: "/dev/ttyUSB0", seconds: 5), "/dev/ttyUSB0"),
    (.noNMEAAtAnyRate(path: "/dev/ttyUSB0", seconds: 30), "/dev/ttyUSB0"), (.gpsdNotRunning(address: "127.0.0.1:2947"), "127.0.0.1:2947"),
    (.hostNotFound(host: "gps.lan"), "gps.lan"), (.hostLookupFailed(host: "gps.lan"), "gps.lan"),
    (.gpsdUnreachable(address: "10.0.0.2:2947", description: "no route to host"), "10.0.0.2:2947"),
    (.gpsdSilent(address: "127.0.0.1:2947", seconds: 10), "127.0.0.1:2947"),
    (.gpsdConnectionLost(address: "127.0.0.1:2947", description: "closed"), "127.0.0.1:2947"),
    (.gpsdError(address: "127.0.0.1:2947", message: "No such device"), "127.0.0.1:2947"),
    (.gpsdHasNoDevice(address: "127.0.0.1:2947"), "127.0.0.1:2947"),
    (.gpsdHasNoFix(address: "127.0.0.1:2947", seconds: 60), "127.0.0.1:2947"),
    (.captureUnreadable(path: "drive.nmea", description: "No such file", denied: false), "drive.nmea"),
    (.captureHasNoData(path: "drive.nmea", bytes: 10), "drive.nmea"),
  ]

  /// Whether `error` is among the samples' kinds: a case added to `SourceError` fails to
  /// compile here until it is sampled above (and held to the shape).
  static func isSampled(_ error: SourceError) -> Bool {
    switch error {
    case .permissionDenied, .noDevice, .deviceBusy, .notASerialDevice, .unsupportedBaudRate, .deviceFailed, .deviceLost, .silentDevice,
      .noNMEAAtRate, .noNMEAAtAnyRate, .gpsdNotRunning, .hostNotFound, .hostLookupFailed, .gpsdUnreachable, .gpsdSilent,
      .gpsdConnectionLost, .gpsdError, .gpsdHasNoDevice, .gpsdHasNoFix, .captureUnreadable, .captureHasNoData:
      true
    case .endOfCapture:
      false  // no error: the summary of a replay that ended
    }
  }

  @Test func everyErrorSaysWhatHappenedToWhatAndWhatToDoOnce() {
    for (error, thing) in Self.samples {
      #expect(Self.isSampled(error))
      let summary = error.summary
      // The thing, once.
      #expect(summary.components(separatedBy: thing).count - 1 == 1, "\(summary)")
      // What happened, then what to do: at least two sentences, the last an instruction or a question.
      let sentences = summary.split(whereSeparator: { $0 == "." || $0 == "?" }).filter { $0.contains(" ") }
      #expect(sentences.count >= 2, "\(summary)")
      #expect(summary.hasSuffix(".") || summary.hasSuffix("?") || summary.hasSuffix(")."), "\(summary)")
      // No sentence said twice.
      #expect(Set(sentences).count == sentences.count, "\(summary)")
      // A cause that may pass says what happens meanwhile; one that cannot, does not.
      if error.isPermanent { #expect(error.meanwhile == nil, "\(error)") }
    }
  }
}
