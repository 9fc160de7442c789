import Corrections
import FoundationEssentials

/// `gpsbridge ntrip`: a caster's mountpoints, with what each sends, how far it is and whether it
/// wants the receiver's GGA; 1 when the table cannot be read.
func listMountpoints(_ options: NtripOptions) async -> Int32 {
  let table: Sourcetable
  do {
    table = try await NTRIPSourcetableRequest.fetch(host: options.host, port: options.port)
  } catch {
    Terminal.diagnostic("Error: \(error)")
    return 1
  }
  func distance(_ mountpoint: Sourcetable.Mountpoint) -> Double? {
    guard let latitude = options.nearLatitude, let longitude = options.nearLongitude else { return nil }
    return mountpoint.distance(fromLatitude: latitude, longitude: longitude)
  }
  let mountpoints = table.mountpoints.sorted { (distance($0) ?? .infinity, $0.name) < (distance($1) ?? .infinity, $1.name) }
  if options.json {
    struct Line: Encodable {
      var mountpoint, identifier, format, messages, systems, country: String
      var latitude, longitude, distance: Double?
      var wantsGGA: Bool
    }
    for mountpoint in mountpoints {
      let line = Line(
        mountpoint: mountpoint.name, identifier: mountpoint.identifier, format: mountpoint.format, messages: mountpoint.messages,
        systems: mountpoint.systems, country: mountpoint.country, latitude: mountpoint.latitude, longitude: mountpoint.longitude,
        distance: distance(mountpoint), wantsGGA: mountpoint.wantsGGA)
      Terminal.write(encodedJSON(line) + "\n")
    }
    return 0
  }
  guard !mountpoints.isEmpty else {
    Terminal.write("The caster at \(options.host):\(options.port) lists no mountpoint.\n")
    return 0
  }
  Terminal.write("\(mountpoints.count) mountpoint\(mountpoints.count == 1 ? "" : "s") at \(options.host):\(options.port):\n")
  for mountpoint in mountpoints {
    var line = "  \(mountpoint.name)"
    if !mountpoint.identifier.isEmpty { line += " (\(mountpoint.identifier))" }
    if !mountpoint.format.isEmpty { line += ": \(mountpoint.format)" }
    if !mountpoint.systems.isEmpty { line += ", \(mountpoint.systems)" }
    if let distance = distance(mountpoint) { line += ", \(Int((distance / 1000).rounded())) km away" }
    if mountpoint.wantsGGA { line += "; wants your position (GGA), which serve --ntrip sends" }
    // A caster's words, shown as words.
    Terminal.write(line.escapingControlCharacters + "\n")
    if !mountpoint.messages.isEmpty { Terminal.write("      messages \(mountpoint.messages.escapingControlCharacters)\n") }
  }
  return 0
}
