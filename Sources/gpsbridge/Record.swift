import FoundationEssentials
import GPSLocation
import NMEA

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `gpsbridge record`: a live source's own bytes into a capture file that `--replay` and
/// the test fixtures read, behind `# Date:` and `# Device:` comments.
func record(_ options: RecordOptions) async -> Int32 {
  let output = options.output
  let file: OpenFile
  // Whether this run makes the file (a FIFO or /dev/null named is only written to).
  let makesFile = output != "-" && access(output, F_OK) != 0
  do {
    file = output == "-" ? .standardOutput : try OpenFile.create(output)
  } catch {
    Terminal.diagnostic("Error: cannot write \(output): \(error).")
    return 1
  }
  defer { if output != "-" { file.close() } }
  let recorded = Shared(0)
  let writeFailure = Shared<SystemError?>(nil)

  let source: any ByteSource
  let description: String
  switch options.source {
  case .device(let path, let baud):
    let device = DeviceDiscovery.ofThisMachine.describe(path: path)
    description = path + (device.usbID.map { " (USB \($0)\(device.knownAs.map { ", " + $0 } ?? ""))" } ?? "")
    source = SerialSource(path: path, baudRate: baud)
  case .gpsd(let address):
    description = "gpsd \(address) (its devices' NMEA)"
    source = GPSDSource(host: address.host, port: address.port, watchesNMEA: true)
  case .automatic:
    guard let path = DeviceDiscovery.ofThisMachine.preferredReceiver()?.path else {
      Terminal.diagnostic("Error: no GPS receiver found to record. Name one with --device PATH (see 'gpsbridge devices').")
      return 1
    }
    description = path
    source = SerialSource(path: path)
  }
  let receiver = Receiver(source)
  let (events, continuation) = AsyncStream.makeStream(of: SourceEvent.self)
  // Wanting nothing yet: the session starts once the header is written.
  let listener = receiver.listen(wanting: []) { event in
    switch event {
    case .bytes(let bytes):
      guard writeFailure.withLock({ $0 }) == nil else { return }
      do throws(SystemError) {
        try file.writeAll(bytes)
        recorded.withLock { $0 += bytes.count }
      } catch {
        writeFailure.withLock { $0 = error }
        continuation.finish()
      }
    case .notice(let notice): Terminal.diagnostic("gpsbridge: \(notice)")
    case .status(let status): continuation.yield(status)
    default: break
    }
  }
  do {
    try file.writeAll(
      Array(
        "# Date: \(UTCTimestamp(nanosecondsSince1970: wallClockNanoseconds).date)\n# Device: \(description)\n# Recorded by gpsbridge \(GPSBridge.version)\n"
          .utf8))
  } catch {
    Terminal.diagnostic("Error: cannot write \(output): \(error).")
    return 1
  }
  Terminal.diagnostic(
    "gpsbridge: recording \(description) to \(output == "-" ? "standard output" : output)"
      + (options.duration.map { " for \(format($0, 0)) s" } ?? "; stop with Ctrl-C") + ".")

  let started = ContinuousClock.now
  receiver.update(listener, wanting: .bytes)
  let status: Int32 = await withTaskGroup(of: Void.self) { group in
    group.addTask {
      await receiver.waitForEnd()
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
        // Causes that may pass are waited out, as the message says.
        Terminal.diagnostic("gpsbridge: \(error.message)")
      case .stopped(let error):
        Terminal.diagnostic("Error: \(error.message)")
        status = 1
      default:
        break
      }
      if status != 0 || writeFailure.withLock({ $0 }) != nil { break }
    }
    group.cancelAll()
    return status
  }
  // The device closed before the program says how it went.
  receiver.stopListening(listener)
  await receiver.sessionClosed()
  let interrupted = Task.isCancelled
  let elapsed = started.duration(to: .now)
  let ran = format(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, 1)
  let bytes = recorded.withLock { $0 }
  let destination = output == "-" ? "standard output" : output
  switch writeFailure.withLock({ $0 }) {
  case .brokenPipe?:
    return 0  // The reader of `-o -` has had enough: end quietly.
  case let failure?:
    Terminal.diagnostic("Error: writing \(destination) failed (\(failure)); the capture is incomplete.")
    return 1
  case nil:
    break
  }
  // A file of this run's own that holds nothing but its header is no capture: it goes, so
  // that the next try is not refused for it.
  func removeIfEmpty() -> Bool {
    guard bytes == 0, makesFile else { return false }
    return unlink(output) == 0
  }
  guard status == 0 else {
    if removeIfEmpty() { Terminal.diagnostic("gpsbridge: nothing was recorded: \(output) is removed.") }
    return status
  }
  // Say how it really ended: stopped by the user, at the end of --duration, or by the source.
  let asked = options.duration.map { " of the \(format($0, 0)) s asked" } ?? ""
  let ending = interrupted ? "stopped after \(ran) s\(asked)" : "in \(ran) s"
  guard bytes > 0 else {
    let removed = removeIfEmpty()
    Terminal.diagnostic(
      "Error: no data arrived from \(description) (\(ending)); "
        + (removed ? "\(destination) is removed." : "\(destination) holds only its header."))
    return 1
  }
  Terminal.diagnostic("gpsbridge: recorded \(bytes) bytes from \(description) to \(destination) (\(ending)).")
  return 0
}
