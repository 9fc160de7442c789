import GPSLocation
import Plumbing

/// `gpsbridge devices`: a table of candidate receivers.
func listDevices(_ options: DevicesOptions) -> Int32 {
  let paths = options.paths, json = options.json
  let discovery = DeviceDiscovery()
  var devices = discovery.devices()
  for path in paths where !devices.contains(where: { $0.path == path || $0.node == path }) {
    devices.append(discovery.describe(path: path))
  }
  if json {
    // Always one array, empty when nothing is plugged in, so `jq '.[]'` works either way.
    var writer = JSONWriter()
    writer.append(ascii: UInt8(ascii: "["))
    for (index, device) in devices.enumerated() {
      if index > 0 { writer.append(ascii: UInt8(ascii: ",")) }
      writer.beginObject()
      writer.field("path", device.path)
      writer.field("node", device.node)
      writer.field("kernelName", device.kernelName)
      if let driver = device.driver { writer.field("driver", driver) }
      if let usbID = device.usbID { writer.field("usbID", usbID) }
      if let manufacturer = device.manufacturer { writer.field("manufacturer", manufacturer) }
      if let product = device.product { writer.field("product", product) }
      if let knownAs = device.knownAs { writer.field("knownAs", knownAs) }
      writer.field("isKnownReceiver", device.isKnownReceiver)
      writer.field("isAccessible", device.isAccessible)
      if let hint = device.accessHint { writer.field("accessHint", hint) }
      writer.endObject()
    }
    writer.append(ascii: UInt8(ascii: "]"))
    writer.newline()
    Terminal.writeBytes(writer.bytes)
    return 0
  }
  guard !devices.isEmpty else {
    Terminal.write("No serial GPS receivers found. Plug one in: USB receivers appear as /dev/ttyACM* or /dev/ttyUSB*.\n")
    return 0
  }
  let rows = devices.map { device -> [String] in
    let receiver = device.knownAs ?? device.product ?? "-"
    return [device.path, device.kernelName, device.usbID ?? "-", receiver, device.isAccessible ? "yes" : "no"]
  }
  let headers = ["PATH", "KERNEL", "USB ID", "RECEIVER", "ACCESS"]
  let widths = (0..<headers.count).map { column in ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0 }
  func line(_ cells: [String]) -> String {
    cells.enumerated().map { index, cell in index == cells.count - 1 ? cell : cell.padding(to: widths[index]) }.joined(separator: "  ")
  }
  var output = [line(headers)] + rows.map(line)
  let hints = Set(devices.compactMap(\.accessHint))
  for hint in hints.sorted() { output.append("\nTo open the devices marked 'no': \(hint)") }
  Terminal.write(output.joined(separator: "\n") + "\n")
  return 0
}
