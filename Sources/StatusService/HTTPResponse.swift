import Plumbing

/// The statuses the status port answers with.
package enum HTTPStatus: Int, Sendable {
  case ok = 200
  case badRequest = 400
  case notFound = 404
  case methodNotAllowed = 405
  case requestTimeout = 408
  case headersTooLarge = 431
  case serviceUnavailable = 503
  case versionNotSupported = 505

  var reasonPhrase: String {
    switch self {
    case .ok: "OK"
    case .badRequest: "Bad Request"
    case .notFound: "Not Found"
    case .methodNotAllowed: "Method Not Allowed"
    case .requestTimeout: "Request Timeout"
    case .headersTooLarge: "Request Header Fields Too Large"
    case .serviceUnavailable: "Service Unavailable"
    case .versionNotSupported: "HTTP Version Not Supported"
    }
  }
}

/// An answer: a whole body of a type, or the start of an event stream (Server-Sent Events),
/// which then carries every event the server publishes until the client goes.
package struct HTTPResponse: Sendable {
  package var status: HTTPStatus
  package var contentType: String
  package var body: [UInt8]
  /// `Cache-Control`: live figures are never cached; a page's copy may be kept but asked
  /// again (`no-cache`).
  package var cacheControl: String
  /// Whether this starts an event stream rather than carrying a body.
  package var isEventStream = false
  /// More headers, such as `Allow`.
  package var extraHeaders: [(String, String)] = []

  package init(status: HTTPStatus = .ok, contentType: String, body: [UInt8], cacheControl: String = "no-store") {
    self.status = status
    self.contentType = contentType
    self.body = body
    self.cacheControl = cacheControl
  }

  /// A short plain-text answer, for errors.
  package static func text(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
    HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
  }

  /// The start of an event stream.
  package static var eventStream: HTTPResponse {
    var response = HTTPResponse(contentType: "text/event-stream", body: [])
    response.isEventStream = true
    return response
  }

  /// The response's bytes: head, and body unless it answers a HEAD.
  package func bytes(forHead: Bool, keepsAlive: Bool, server: String, date: String = HTTPResponse.date()) -> [UInt8] {
    var head = "HTTP/1.1 \(status.rawValue) \(status.reasonPhrase)\r\n"
    head += "Date: \(date)\r\n"
    head += "Server: \(server)\r\n"
    head += "Content-Type: \(contentType)\r\n"
    head += "Cache-Control: \(cacheControl)\r\n"
    head += "X-Content-Type-Options: nosniff\r\n"
    if contentType.hasPrefix("text/html") {
      // Everything the page needs is in it: nothing may be loaded from anywhere else.
      head +=
        "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:\r\n"
    }
    for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
    if isEventStream, !forHead {
      head += "Connection: keep-alive\r\n\r\n"
      return Array(head.utf8)
    }
    head += "Content-Length: \(isEventStream ? 0 : body.count)\r\n"
    head += "Connection: \(keepsAlive ? "keep-alive" : "close")\r\n\r\n"
    var bytes = Array(head.utf8)
    if !forHead, !isEventStream { bytes += body }
    return bytes
  }
}

extension HTTPResponse {
  /// A moment (seconds since 1970; now when `nil`) as HTTP dates are written:
  /// `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110's IMF-fixdate).
  package static func date(_ since1970: Int? = nil) -> String {
    var seconds = since1970.map { time_t($0) } ?? time(nil)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
      + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
  }
}
