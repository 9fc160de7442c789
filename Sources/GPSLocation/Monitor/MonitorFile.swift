import FoundationEssentials
import Plumbing

/// A monitor's state file: everything its ``MonitorBook`` holds (the records, the next event's
/// id, the events not yet read), as one JSON object that says what it is and which version.
/// A file that says otherwise is not read as a monitor's.
struct MonitorFile: Codable {
  static let format = "gpsbridge monitor"
  static let version = 1

  var format: String
  var version: Int
  var name: String
  var nextEventID: UInt64
  var conditions: [Condition]
  var unread: [MonitorEvent]

  struct Condition: Codable {
    var identifier: String
    var condition: MonitorCondition
    var state: ConditionState
    var lastEvent: MonitorEvent?
  }

  /// Only what says whose file it is, read first so that another program's JSON or another
  /// version is named as such rather than as a missing key.
  private struct Header: Codable {
    var format: String?
    var version: Int?
  }

  init(name: String, book: MonitorBook) {
    format = Self.format
    version = Self.version
    self.name = name
    nextEventID = book.nextEventID
    conditions = book.records.sorted { $0.key < $1.key }.map {
      Condition(identifier: $0.key, condition: $0.value.condition, state: $0.value.state, lastEvent: $0.value.lastEvent)
    }
    unread = book.unread
  }

  var book: MonitorBook {
    var book = MonitorBook()
    book.nextEventID = nextEventID
    for entry in conditions {
      book.records[entry.identifier] = MonitorRecord(condition: entry.condition, state: entry.state, lastEvent: entry.lastEvent)
    }
    book.unread = unread
    return book
  }

  /// The book `bytes` hold, or why they hold none.
  static func book(from bytes: [UInt8]) -> Result<MonitorBook, Unreadable> {
    let header: Header
    do {
      header = try JSONCoding.decode(Header.self, from: bytes)
    } catch {
      return .failure(Unreadable(reason: "it is not JSON (\(error))"))
    }
    guard header.format == format else {
      return .failure(
        Unreadable(reason: "it is not a gpsbridge monitor's state (its \"format\" is \(header.format.map { "\"\($0)\"" } ?? "missing"))"))
    }
    guard header.version == version else {
      return .failure(
        Unreadable(reason: "it is of version \(header.version.map(String.init) ?? "none"), and this gpsbridge reads version \(version)"))
    }
    do {
      return .success(try JSONCoding.decode(MonitorFile.self, from: bytes).book)
    } catch {
      return .failure(Unreadable(reason: "it is damaged (\(error))"))
    }
  }

  struct Unreadable: Swift.Error {
    var reason: String
  }

  func encoded() throws -> [UInt8] {
    Array(try JSONCoding.encode(self).utf8) + [UInt8(ascii: "\n")]
  }
}
