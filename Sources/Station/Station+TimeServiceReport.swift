import Plumbing
import TimeService

extension Station {
  /// The answer to `?TIMESERVICE;`, gpsbridge's own request beside gpsd's: whether the
  /// receivers' time feeds the clock, and what has been measured of it so far (the figures
  /// the minute's report says): one JSON object for each receiver that feeds it, naming its
  /// device, lines apart. With `chrony`'s latest answer, each also has `chronyView`: whether
  /// chrony steers the clock by a reference clock, and what it makes of each
  /// (``ChronyCheck/findings``). (`chrony` is the refclock line advised.)
  public func timeServiceReport(chrony: Result<ChronyCheck, ChronyCheck.Failure>? = nil) -> String {
    let feeds = clockFeeds
    guard !feeds.isEmpty else { return #"{"class":"TIMESERVICE","active":false}"# }
    return feeds.map { device, feed in
      var writer = JSONWriter(capacity: 256)
      writer.beginObject()
      writer.field("class", "TIMESERVICE")
      writer.field("device", device)
      writer.field("active", true)
      let state = feed.state
      writer.field("feeding", state.feeding)
      if let notice = state.notice { writer.field("notice", notice.description) }
      let report = feed.report
      writer.field("samples", report?.count ?? 0)
      if let report {
        // A delay beyond a second is no latency: it is said as such, and never advised.
        if report.isPlausible {
          writer.field("delay", report.delay, decimals: 6)
          writer.field("jitter", report.jitter, decimals: 6)
        } else {
          writer.field("warning", report.summary)
        }
        writer.field("against", report.against)
        if let line = feed.chronyConfiguration(report).first { writer.field("chrony", line) }
      }
      if let counts = feed.chronyCounts {
        writer.field("sent", counts.sent)
        writer.field("dropped", counts.dropped)
      }
      if let chrony {
        writer.object("chronyView") { writer in
          switch chrony {
          case .success(let check):
            writer.field("usesTime", check.usesReferenceClock)
            writer.beginArray("findings")
            for finding in check.findings { writer.element(finding) }
            writer.endArray()
          case .failure(let failure):
            writer.field("error", failure.description)
          }
        }
      }
      writer.endObject()
      return writer.string
    }.joined(separator: "\r\n")
  }
}
