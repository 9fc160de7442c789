import FoundationEssentials
import Plumbing

/// A monitor's state file: everything its ``MonitorBook`` holds (the records, the next event's
/// id, the events not yet handled), as one JSON object that says what it is and which
/// version. A file that says otherwise is not read as a monitor's.
///
/// Written and read by hand rather than through `Codable`: a monitor of 100,000 conditions
/// is a 10 MB file, written at every event, and `Codable`'s containers took seconds for it.
///
/// ```json
/// {"format":"gpsbridge monitor","version":1,"name":"fences","nextEventID":3,
///  "conditions":[{"identifier":"home","state":"satisfied","circle":{"latitude":47.3769,"longitude":8.5417,"radius":100},
///                 "lastEvent":{"id":2,"identifier":"home","state":"satisfied","previousState":"unsatisfied","time":1714550433}}],
///  "unread":[]}
/// ```
///
/// `time` is seconds since 1970 (UTC), as the fix said; a polygon is `"polygon":[{"latitude",
/// "longitude"}, …]` in place of `"circle"`. A monitor that keeps visits has, during a stay,
/// `"visit":{"latitude","longitude","horizontalAccuracy","arrival","lastSeen","fixes"}`
/// (times as `time`).
enum MonitorFile {
  static let format = "gpsbridge monitor"
  static let version = 1

  struct Unreadable: Swift.Error {
    var reason: String
  }

  static func encoded(name: String, book: MonitorBook) -> [UInt8] {
    var writer = JSONWriter(capacity: 64 + book.records.count * 160)
    writer.beginObject()
    writer.field("format", format)
    writer.field("version", version)
    writer.field("name", name)
    writer.field("nextEventID", Int(book.nextEventID))
    writer.beginArray("conditions")
    for (identifier, record) in book.records.sorted(by: { $0.key < $1.key }) {
      writer.element()
      writer.beginObject()
      writer.field("identifier", identifier)
      writer.field("state", record.state.rawValue)
      switch record.condition {
      case .circle(let center, let radius):
        writer.object("circle") {
          $0.field("latitude", center.latitude)
          $0.field("longitude", center.longitude)
          $0.field("radius", radius)
        }
      case .polygon(let vertices):
        writer.beginArray("polygon")
        for vertex in vertices {
          writer.element()
          writer.beginObject()
          writer.field("latitude", vertex.latitude)
          writer.field("longitude", vertex.longitude)
          writer.endObject()
        }
        writer.endArray()
      }
      if let event = record.lastEvent { writer.object("lastEvent") { write(event, into: &$0) } }
      writer.endObject()
    }
    writer.endArray()
    writer.beginArray("unread")
    for event in book.unread {
      writer.element()
      writer.beginObject()
      write(event, into: &writer)
      writer.endObject()
    }
    writer.endArray()
    if let visit = book.visit {
      writer.object("visit") {
        $0.field("latitude", visit.arrival.coordinate.latitude)
        $0.field("longitude", visit.arrival.coordinate.longitude)
        $0.field("horizontalAccuracy", visit.arrival.horizontalAccuracy)
        $0.field("arrival", visit.arrival.arrivalDate.timeIntervalSince1970)
        $0.field("lastSeen", visit.lastSeen.timeIntervalSince1970)
        $0.field("fixes", visit.fixes)
      }
    }
    writer.endObject()
    writer.newline()
    return writer.bytes
  }

  private static func write(_ event: MonitorEvent, into writer: inout JSONWriter) {
    writer.field("id", Int(event.id))
    writer.field("identifier", event.identifier)
    writer.field("state", event.state.rawValue)
    writer.field("previousState", event.previousState.rawValue)
    if let date = event.date { writer.field("time", date.timeIntervalSince1970) }
    if event.detectedAtStart { writer.field("detectedAtStart", true) }
    if event.conditionUnsupported { writer.field("conditionUnsupported", true) }
    if event.conditionLimitExceeded { writer.field("conditionLimitExceeded", true) }
    if let visit = event.visit {
      writer.object("visit") {
        $0.field("latitude", visit.coordinate.latitude)
        $0.field("longitude", visit.coordinate.longitude)
        $0.field("horizontalAccuracy", visit.horizontalAccuracy)
        $0.field("arrival", visit.arrivalDate.timeIntervalSince1970)
        if visit.isDeparture { $0.field("departure", visit.departureDate.timeIntervalSince1970) }
      }
    }
  }

  /// The book `bytes` hold, or why they hold none.
  static func book(from bytes: [UInt8]) -> Result<MonitorBook, Unreadable> {
    let root: [String: JSONValue]
    do {
      guard case .object(let members) = try JSONValue(parsing: bytes) else {
        return .failure(Unreadable(reason: "it is not a gpsbridge monitor's state (it is not a JSON object)"))
      }
      root = members
    } catch {
      return .failure(Unreadable(reason: "it is not JSON (\(error))"))
    }
    guard case .string(format)? = root["format"] else {
      return .failure(
        Unreadable(reason: "it is not a gpsbridge monitor's state (its \"format\" is \(root["format"].map(describe) ?? "missing"))"))
    }
    guard case .number(let written)? = root["version"], Int(written) == version else {
      return .failure(
        Unreadable(reason: "it is of version \(root["version"].map(describe) ?? "none"), and this gpsbridge reads version \(version)"))
    }
    do throws(Unreadable) {
      var book = MonitorBook()
      book.nextEventID = try integer(root["nextEventID"], "nextEventID")
      guard case .array(let conditions)? = root["conditions"] else { throw Unreadable(reason: "it is damaged (no \"conditions\")") }
      for (index, value) in conditions.enumerated() {
        guard case .object(let entry) = value, case .string(let identifier)? = entry["identifier"] else {
          throw Unreadable(reason: "it is damaged (condition \(index) has no identifier)")
        }
        let condition: MonitorCondition
        if case .object(let circle)? = entry["circle"] {
          condition = .circle(
            center: LocationCoordinate2D(
              latitude: try number(circle["latitude"], identifier), longitude: try number(circle["longitude"], identifier)),
            radius: try number(circle["radius"], identifier))
        } else if case .array(let corners)? = entry["polygon"] {
          condition = .polygon(
            vertices: try corners.map { corner throws(Unreadable) in
              guard case .object(let vertex) = corner else { throw Unreadable(reason: "it is damaged (a corner of '\(identifier)')") }
              return LocationCoordinate2D(
                latitude: try number(vertex["latitude"], identifier), longitude: try number(vertex["longitude"], identifier))
            })
        } else {
          throw Unreadable(reason: "it is damaged ('\(identifier)' is neither a circle nor a polygon)")
        }
        var record = MonitorRecord(condition: condition, state: try state(entry["state"], identifier))
        if case .object(let last)? = entry["lastEvent"] { record.lastEvent = try event(last) }
        book.records[identifier] = record
      }
      if case .array(let unread)? = root["unread"] {
        book.unread = try unread.map { value throws(Unreadable) in
          guard case .object(let members) = value else { throw Unreadable(reason: "it is damaged (an unread event)") }
          return try event(members)
        }
      }
      if case .object(let visit)? = root["visit"] { book.visit = try stay(visit) }
      return .success(book)
    } catch {
      return .failure(error)
    }
  }

  /// The visit in progress kept.
  private static func stay(_ members: [String: JSONValue]) throws(Unreadable) -> VisitInProgress {
    let whose = "the visit in progress"
    let arrival = try visit(members, whose)
    guard case .number(let text)? = members["fixes"], let fixes = Int(text), fixes > 0, fixes <= 1 << 40,
      !arrival.isDeparture
    else {
      throw Unreadable(reason: "it is damaged (\(whose))")
    }
    // A last fix before the arrival (a capture replayed again goes back in time) is the arrival.
    let lastSeen = max(try date(members["lastSeen"], whose), arrival.arrivalDate)
    return VisitInProgress(arrival: arrival, lastSeen: lastSeen, fixes: fixes)
  }

  /// A visit: its centre, accuracy, arrival and (for a departure) departure.
  private static func visit(_ members: [String: JSONValue], _ whose: String) throws(Unreadable) -> Visit {
    let center = LocationCoordinate2D(latitude: try number(members["latitude"], whose), longitude: try number(members["longitude"], whose))
    let accuracy = try number(members["horizontalAccuracy"], whose)
    guard center.isValid, accuracy >= 0 else { throw Unreadable(reason: "it is damaged (\(whose))") }
    let arrival = try date(members["arrival"], whose)
    // (As the engine reported it: a capture replayed again can end a stay before it began.)
    let departure = members["departure"] == nil ? Date.distantFuture : try date(members["departure"], whose)
    return Visit(coordinate: center, horizontalAccuracy: accuracy, arrivalDate: arrival, departureDate: departure)
  }

  /// A fix's time: within the years 1970 to 2200, as a receiver's date is read.
  private static func date(_ value: JSONValue?, _ whose: String) throws(Unreadable) -> Date {
    let seconds = try number(value, whose)
    guard seconds >= 0, seconds < 7_289_654_400 else { throw Unreadable(reason: "it is damaged (a time of '\(whose)')") }
    return Date(timeIntervalSince1970: seconds)
  }

  private static func event(_ members: [String: JSONValue]) throws(Unreadable) -> MonitorEvent {
    guard case .string(let identifier)? = members["identifier"] else {
      throw Unreadable(reason: "it is damaged (an event without an identifier)")
    }
    let time = members["time"] == nil ? nil : try date(members["time"], identifier)
    var visit: Visit?
    if case .object(let stay)? = members["visit"] { visit = try Self.visit(stay, "a visit") }
    return MonitorEvent(
      id: try integer(members["id"], identifier), identifier: identifier, state: try state(members["state"], identifier),
      previousState: try state(members["previousState"], identifier), date: time,
      detectedAtStart: members["detectedAtStart"] == .bool(true),
      conditionUnsupported: members["conditionUnsupported"] == .bool(true),
      conditionLimitExceeded: members["conditionLimitExceeded"] == .bool(true), visit: visit)
  }

  private static func number(_ value: JSONValue?, _ whose: String) throws(Unreadable) -> Double {
    guard case .number(let text)? = value, let number = Double(text), number.isFinite else {
      throw Unreadable(reason: "it is damaged (a number of '\(whose)')")
    }
    return number
  }

  /// Ids are written as JSON integers and counted on: at most 2⁵³, which every JSON reader
  /// reads exactly (and far from where counting on could overflow).
  private static func integer(_ value: JSONValue?, _ whose: String) throws(Unreadable) -> UInt64 {
    guard case .number(let text)? = value, let number = UInt64(text), number <= 1 << 53 else {
      throw Unreadable(reason: "it is damaged (an id of '\(whose)')")
    }
    return number
  }

  private static func state(_ value: JSONValue?, _ whose: String) throws(Unreadable) -> ConditionState {
    guard case .string(let text)? = value, let state = ConditionState(rawValue: text) else {
      throw Unreadable(reason: "it is damaged (a state of '\(whose)')")
    }
    return state
  }

  private static func describe(_ value: JSONValue) -> String {
    switch value {
    case .string(let text): "\"\(text)\""
    case .number(let text): text
    case .bool(let flag): "\(flag)"
    case .null: "null"
    case .array: "an array"
    case .object: "an object"
    }
  }
}
