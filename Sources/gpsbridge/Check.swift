import GPSLocation
import NMEA
import Plumbing

/// `gpsbridge check FILE`: what a capture holds and how clean it is.
func check(_ options: CheckOptions) -> Int32 {
  let path = options.path
  let json = options.json
  let descriptor: FileDescriptor
  do {
    descriptor = path == "-" ? .standardInput : try FileDescriptor.open(path, O_RDONLY)
  } catch {
    Terminal.diagnostic("Error: cannot read \(path): \(error).")
    return 1
  }
  var decoder = FixDecoder(countsSentences: true, keepsSatellites: false)
  var fixes = 0
  var positions = 0
  var first: UTCTimestamp?
  var last: UTCTimestamp?
  var firstTime: UTCTime?
  var lastTime: UTCTime?
  var bytesRead = 0
  var buffer = [UInt8](repeating: 0, count: 65_536)

  func drain() {
    while let fix = decoder.next() {
      fixes += 1
      if fix.hasPosition { positions += 1 }
      if let stamp = fix.timestamp {
        if first == nil { first = stamp }
        last = stamp
      }
      if firstTime == nil { firstTime = fix.time }
      lastTime = fix.time
    }
  }

  while true {
    let count: Int
    do {
      count = try buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try descriptor.read(into: raw) } }.get()
    } catch {
      Terminal.diagnostic("Error: reading \(path) failed: \(error).")
      return 1
    }
    if count == 0 { break }
    bytesRead += count
    decoder.append(buffer[0..<count])
    drain()
  }
  decoder.finish()
  drain()
  let decodeErrors = decoder.decodeErrors
  let byType = decoder.tally?.entries ?? []

  let counters = decoder.framer.counters
  let span: Double? = {
    if let first, let last { return last.secondsSince1970 - first.secondsSince1970 }
    return nil
  }()
  let rate: Double? = span.flatMap { $0 > 0 && fixes > 1 ? Double(fixes - 1) / $0 : nil }
  if json {
    var writer = JSONWriter()
    writer.beginObject()
    writer.field("file", path)
    writer.field("bytes", bytesRead)
    writer.object("sentences") { writer in
      for (key, count) in byType.sorted(by: { $0.kind < $1.kind }) { writer.field(key, count) }
    }
    writer.object("rejected") { writer in
      writer.field("badChecksum", counters.badChecksum)
      writer.field("missingChecksum", counters.missingChecksum)
      writer.field("overlong", counters.overlong)
      writer.field("malformed", counters.malformed)
      writer.field("undecodable", decodeErrors)
      writer.field("noiseBytes", counters.noiseBytes)
    }
    writer.field("fixes", fixes)
    writer.field("fixesWithPosition", positions)
    if let first { writer.field("start", first.description) }
    if let last { writer.field("end", last.description) }
    if let span { writer.field("seconds", span) }
    if let rate { writer.field("rate", rate) }
    writer.endObject()
    writer.newline()
    Terminal.writeBytes(writer.bytes)
    return 0
  }
  var lines = ["\(path): \(bytesRead) bytes, \(counters.sentences) sentences"]
  lines.append("")
  lines.append("SENTENCES")
  for (key, count) in byType {
    lines.append("  " + key.padding(to: 18) + String(count).leftPadding(to: 9))
  }
  lines.append("")
  lines.append("REJECTED")
  lines.append("  bad checksum      " + String(counters.badChecksum).leftPadding(to: 9))
  lines.append("  no checksum       " + String(counters.missingChecksum).leftPadding(to: 9))
  lines.append("  overlong          " + String(counters.overlong).leftPadding(to: 9))
  lines.append("  malformed         " + String(counters.malformed).leftPadding(to: 9))
  lines.append("  undecodable       " + String(decodeErrors).leftPadding(to: 9))
  lines.append("  noise bytes       " + String(counters.noiseBytes).leftPadding(to: 9))
  lines.append("")
  lines.append("FIXES")
  lines.append("  epochs            " + String(fixes).leftPadding(to: 9))
  lines.append("  with a position   " + String(positions).leftPadding(to: 9))
  if let first, let last {
    lines.append("  from              \(first)")
    lines.append("  to                \(last)")
  } else if let firstTime, let lastTime {
    lines.append("  from              \(firstTime) (no date in the capture)")
    lines.append("  to                \(lastTime)")
  }
  if let span { lines.append("  span              " + format(span, 1) + " s") }
  if let rate { lines.append("  rate              " + format(rate, 2) + " Hz") }
  Terminal.write(lines.joined(separator: "\n") + "\n")
  return 0
}

extension String {
  func padding(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
  func leftPadding(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
