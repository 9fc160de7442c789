import FoundationEssentials
import Plumbing
import SourceStatus

/// Lists serial devices from sysfs and `/dev`.
public struct DeviceDiscovery: Sendable {
  public var sysfsRoot: String
  public var devRoot: String

  /// Roots are parameters so tests can point at a tree of their own.
  public init(sysfsRoot: String = "/sys", devRoot: String = "/dev") {
    self.sysfsRoot = sysfsRoot
    self.devRoot = devRoot
  }

  /// USB serial devices (`ttyUSB*`, `ttyACM*`) and anything linked from
  /// `/dev/serial/by-id` or as `/dev/gps*`; known GPS receivers first.
  public func devices() -> [SerialDevice] {
    let byID = links(in: devRoot + "/serial/by-id")
    let gpsLinks = entries(devRoot).filter { $0.hasPrefix("gps") }.map { devRoot + "/" + $0 }
    var names = Set(entries(sysfsRoot + "/class/tty").filter { $0.hasPrefix("ttyUSB") || $0.hasPrefix("ttyACM") })
    for link in byID.keys + gpsLinks {
      if let target = realPath(link) { names.insert(String(target.split(separator: "/").last ?? "")) }
    }
    let devices = names.filter { !$0.isEmpty }.map { name -> SerialDevice in
      let node = devRoot + "/" + name
      let stable = byID.first { realPath($0.key) == node || $0.value.hasSuffix("/" + name) }?.key
      return describe(node: node, kernelName: name, stablePath: stable)
    }
    return devices.sorted { ($0.isKnownReceiver ? 0 : 1, $0.kernelName) < ($1.isKnownReceiver ? 0 : 1, $1.kernelName) }
  }

  /// Describes one path (a node or a link), for devices not found by scanning.
  public func describe(path: String) -> SerialDevice {
    let node = realPath(path) ?? path
    let name = node.hasPrefix(devRoot + "/") ? String(node.dropFirst(devRoot.count + 1)) : String(node.split(separator: "/").last ?? "")
    return describe(node: node, kernelName: name, stablePath: path == node ? nil : path)
  }

  func describe(node: String, kernelName: String, stablePath: String?) -> SerialDevice {
    let sysDevice = sysfsRoot + "/class/tty/" + kernelName + "/device"
    let driver = readLink(sysDevice + "/driver").map { String($0.split(separator: "/").last ?? "") }
    var vendor: String?, product: String?, manufacturer: String?, productName: String?
    // Walk up from the tty's device to the USB device that has the ids.
    if var directory = realPath(sysDevice) {
      for _ in 0..<4 {
        if let id = read(directory + "/idVendor") {
          vendor = id
          product = read(directory + "/idProduct")
          manufacturer = read(directory + "/manufacturer")
          productName = read(directory + "/product")
          break
        }
        guard let parent = directory.lastIndex(of: "/"), parent != directory.startIndex else { break }
        directory = String(directory[..<parent])
      }
    }
    let entry = vendor.flatMap { vendor in product.flatMap { KnownReceivers.lookup(vendorID: vendor, productID: $0) } }
    let accessible = access(node, R_OK | W_OK) == 0
    var hint: String?
    if !accessible {
      hint =
        errno == ENOENT
        ? "The device node is missing: is it plugged in?"
        : SourceError.permissionDenied(path: node, group: SerialPort.openingGroup(of: node)).message
    }
    return SerialDevice(
      path: stablePath ?? node, node: node, kernelName: kernelName, driver: driver, vendorID: vendor, productID: product,
      manufacturer: manufacturer, product: productName, knownAs: entry?.name, isKnownReceiver: entry?.isReceiver ?? false,
      isAccessible: accessible, accessHint: hint)
  }

  /// The receiver the bridge should use without being told: the first of ``receivers()``.
  public func preferredReceiver() -> SerialDevice? {
    receivers().first
  }

  /// The devices that are GPS receivers without being named: known receivers first, then USB
  /// serial devices whose product or maker says GPS or GNSS. A bare bridge chip (CP210x,
  /// PL2303, FTDI, CH340) may be anything, so it is used only when named.
  public func receivers() -> [SerialDevice] {
    let all = devices()
    let saysGPS = all.filter { device in
      let text = ((device.product ?? "") + " " + (device.manufacturer ?? "")).lowercased()
      return !device.isKnownReceiver && (text.includes("gps") || text.includes("gnss"))
    }
    return all.filter(\.isKnownReceiver) + saysGPS
  }
}
