import Plumbing

/// The program that listens on a TCP port, as `/proc` shows it: so that "the port is in use"
/// can name who holds it instead of guessing gpsd. Only processes this user may look into are
/// found (all of them for root).
public struct PortHolder: Equatable, Sendable, CustomStringConvertible {
  public var processID: Int32
  /// The program's name (`/proc/PID/comm`): `gpsd`, `systemd`, `python3`…
  public var name: String

  public var description: String { "\(name) (pid \(processID))" }

  /// The holder of the listening socket on `port`, or `nil` when none is found.
  package static func find(port: Int, reading read: (String) -> String? = InstalledRelease.readTextFile) -> PortHolder? {
    let inodes = ["/proc/net/tcp", "/proc/net/tcp6"].compactMap(read).flatMap { listeningInodes(port: port, table: $0) }
    guard !inodes.isEmpty else { return nil }
    let wanted = Set(inodes.map { "socket:[\($0)]" })
    for processID in processIDs() {
      for target in descriptorTargets(of: processID) where wanted.contains(target) {
        let name = read("/proc/\(processID)/comm").map { String($0.prefix { $0 != "\n" }) } ?? "?"
        return PortHolder(processID: processID, name: name)
      }
    }
    return nil
  }

  /// The inodes of the sockets listening on `port` in a `/proc/net/tcp` table: local address
  /// `ADDRESS:PORT` in hexadecimal (field 2), state `0A` (LISTEN, field 4), inode (field 10).
  package static func listeningInodes(port: Int, table: String) -> [String] {
    table.split(separator: "\n").dropFirst().compactMap { line in
      let fields = line.split(separator: " ")
      guard fields.count > 9, fields[3] == "0A", let local = fields[1].split(separator: ":").last,
        Int(local, radix: 16) == port, fields[9] != "0"
      else { return nil }
      return String(fields[9])
    }
  }

  static func processIDs() -> [Int32] {
    guard let directory = opendir("/proc") else { return [] }
    defer { closedir(directory) }
    var found: [Int32] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if let processID = Int32(name) { found.append(processID) }
    }
    return found
  }

  /// What each open descriptor of a process points at (`socket:[123]`), where it may be read.
  static func descriptorTargets(of processID: Int32) -> [String] {
    let path = "/proc/\(processID)/fd"
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var targets: [String] = []
    var buffer = [CChar](repeating: 0, count: 256)
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      guard name.first?.isNumber == true else { continue }
      let count = readlink(path + "/" + name, &buffer, buffer.count - 1)
      guard count > 0 else { continue }
      targets.append(String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return targets
  }
}
