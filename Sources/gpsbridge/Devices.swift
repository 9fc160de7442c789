import GPSLocation

/// `gpsbridge devices`: a table of candidate receivers.
func listDevices(_ options: DevicesOptions) -> Int32 {
  let paths = options.paths, json = options.json
  let discovery = DeviceDiscovery.ofThisMachine
  var devices = discovery.devices()
  for path in paths where !devices.contains(where: { $0.path == path || $0.node == path }) {
    devices.append(discovery.describe(path: path))
  }
  if json {
    // Always one array, empty when nothing is plugged in, so `jq '.[]'` works either way.
    Terminal.writeBytes(Array(encodedJSON(devices.map(DeviceJSON.init)).utf8) + [0x0A])
    return 0
  }
  guard !devices.isEmpty else {
    Terminal.write("No serial GPS receivers found. Plug one in: USB receivers appear as /dev/ttyACM* or /dev/ttyUSB*.\n")
    return 0
  }
  let rows = devices.map { device -> [String] in
    let receiver = device.knownAs ?? device.product ?? "-"
    // A USB device names itself: its words are shown as words.
    let cells = [device.path, device.kernelName, device.usbID ?? "-", receiver, device.isAccessible ? "yes" : "no"]
    return cells.map(\.escapingControlCharacters)
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

/// A device as `devices --json` lists it; what is not known is left out.
struct DeviceJSON: Encodable {
  var path: String
  var node: String
  var kernelName: String
  var driver: String?
  var usbID: String?
  var manufacturer: String?
  var product: String?
  var knownAs: String?
  var isKnownReceiver: Bool
  var isAccessible: Bool
  var accessHint: String?

  init(_ device: SerialDevice) {
    path = device.path
    node = device.node
    kernelName = device.kernelName
    driver = device.driver
    usbID = device.usbID
    manufacturer = device.manufacturer
    product = device.product
    knownAs = device.knownAs
    isKnownReceiver = device.isKnownReceiver
    isAccessible = device.isAccessible
    accessHint = device.accessHint
  }
}

/// `value` as one line of JSON, its keys sorted so that the same value always reads the same.
func encodedJSON(_ value: some Encodable) -> String {
  // Strings, whole numbers and booleans cannot fail to encode.
  (try? JSONCoding.encode(value)) ?? "null"
}
