import FoundationEssentials
import GPSLocation
import NMEA
import Plumbing

/// `gpsbridge record`: a live source's own bytes into a capture file that `--replay` and
/// the test fixtures read, behind `# Date:` and `# Device:` comments.
func record(_ options: RecordOptions) async -> Int32 {
  let output = options.output
  let file: FileDescriptor
  do {
    file = output == "-" ? .standardOutput : try FileDescriptor.open(output, O_WRONLY | O_CREAT | O_TRUNC)
  } catch {
    Terminal.diagnostic("Error: cannot write \(output): \(error).")
    return 1
  }
  defer { if output != "-" { try? file.close() } }
  let recorded = Locked(0)
  let writeFailed = Locked(false)
  let sink: @Sendable ([UInt8]) -> Void = { bytes in
    do {
      try file.writeAll(bytes)
      recorded.withLock { $0 += bytes.count }
    } catch {
      writeFailed.withLock { $0 = true }
    }
  }

  let source: any FixSource
  let description: String
  switch options.source {
  case .device(let path, let baud):
    let device = DeviceDiscovery().describe(path: path)
    description = path + (device.usbID.map { " (USB \($0)\(device.knownAs.map { ", " + $0 } ?? ""))" } ?? "")
    source = SerialSource(path: path, baudRate: baud, onNotice: { Terminal.diagnostic("gpsbridge: \($0)") }, rawBytes: sink)
  case .gpsd(let address):
    description = "gpsd \(address) (its devices' NMEA)"
    source = GPSDSource(host: address.host, port: address.port, rawNMEA: sink)
  case .automatic:
    guard let path = DeviceDiscovery().preferredReceiver()?.path else {
      Terminal.diagnostic("Error: no GPS receiver found to record. Name one with --device PATH (see 'gpsbridge devices').")
      return 1
    }
    description = path
    source = SerialSource(path: path, onNotice: { Terminal.diagnostic("gpsbridge: \($0)") }, rawBytes: sink)
  }
  do {
    try file.writeAll(Array("# Date: \(UTCDate.today)\n# Device: \(description)\n# Recorded by gpsbridge \(version)\n".utf8))
  } catch {
    Terminal.diagnostic("Error: cannot write \(output): \(error).")
    return 1
  }
  Terminal.diagnostic(
    "gpsbridge: recording \(description) to \(output == "-" ? "standard output" : output)"
      + (options.duration.map { " for \(format($0, 0)) s" } ?? "; stop with Ctrl-C") + ".")

  let (events, continuation) = AsyncStream.makeStream(of: SourceEvent.self)
  let status: Int32 = await withTaskGroup(of: Void.self) { group in
    group.addTask {
      await source.run { event in continuation.yield(event) }
      continuation.finish()
    }
    if let duration = options.duration {
      group.addTask {
        try? await Task.sleep(for: .milliseconds(Int64(duration * 1000)))
        continuation.finish()
      }
    }
    var status: Int32 = 0
    for await event in events {
      switch event {
      case .failed(let error), .paused(let error), .ended(let error):
        Terminal.diagnostic("gpsbridge: \(error.message)")
        if error.reason?.isPermanent == true { status = 1 }
        if case .gpsdNotRunning = error.reason { status = 1 }
      default:
        break
      }
      if status != 0 || writeFailed.withLock({ $0 }) { break }
    }
    group.cancelAll()
    if writeFailed.withLock({ $0 }) {
      Terminal.diagnostic("Error: writing \(output) failed; the capture is incomplete.")
      status = 1
    }
    return status
  }
  Terminal.diagnostic("gpsbridge: recorded \(recorded.withLock { $0 }) bytes to \(output == "-" ? "standard output" : output).")
  return status
}
