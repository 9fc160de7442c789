import FoundationEssentials
import Plumbing

/// A serial device that may be a GPS receiver.
public struct SerialDevice: Hashable, Sendable, Codable {
  /// The path to open: a `/dev/serial/by-id/…` link when there is one (it survives
  /// renumbering), else the device node.
  public var path: String
  /// The device node, e.g. `/dev/ttyUSB0`.
  public var node: String
  /// The kernel's name, e.g. `ttyUSB0`.
  public var kernelName: String
  /// The kernel driver, e.g. `cp210x`, `cdc_acm`, `pl2303`, `ftdi_sio`.
  public var driver: String?
  /// USB vendor and product ids, four hex digits each.
  public var vendorID: String?
  public var productID: String?
  public var manufacturer: String?
  public var product: String?
  /// What the USB id says this is, when it is in ``KnownReceivers``.
  public var knownAs: String?
  /// Whether the id is a GPS receiver's own (not a generic USB–serial bridge).
  public var isKnownReceiver: Bool
  /// Whether this process may open it for reading and writing.
  public var isAccessible: Bool
  /// The one-line fix when it may not.
  public var accessHint: String?

  /// `vendor:product`, or `nil`.
  public var usbID: String? {
    guard let vendorID, let productID else { return nil }
    return "\(vendorID):\(productID)"
  }
}

/// USB ids of GPS receivers and of the USB–serial bridges they are built on.
public enum KnownReceivers {
  public struct Entry: Sendable {
    public var vendorID: String
    public var productIDs: ClosedRange<Int>
    public var name: String
    /// True for a GPS receiver's own id; false for a bridge chip that may carry one.
    public var isReceiver: Bool
  }

  public static let table: [Entry] = [
    Entry(vendorID: "1546", productIDs: 0x01a5...0x01a9, name: "u-blox GNSS receiver", isReceiver: true),
    Entry(vendorID: "091e", productIDs: 0x0003...0x0003, name: "Garmin GPS (USB)", isReceiver: true),
    Entry(vendorID: "1199", productIDs: 0x0120...0x0120, name: "Sierra Wireless GNSS", isReceiver: true),
    Entry(vendorID: "0e8d", productIDs: 0x3329...0x3329, name: "MediaTek GPS", isReceiver: true),
    Entry(vendorID: "2c7c", productIDs: 0x0125...0x0125, name: "Quectel GNSS/modem", isReceiver: true),
    Entry(vendorID: "10c4", productIDs: 0xea60...0xea60, name: "Silicon Labs CP210x USB–serial (common in GPS dongles)", isReceiver: false),
    Entry(vendorID: "067b", productIDs: 0x2303...0x2303, name: "Prolific PL2303 USB–serial (BU-353 and others)", isReceiver: false),
    Entry(vendorID: "0403", productIDs: 0x6001...0x6001, name: "FTDI FT232 USB–serial", isReceiver: false),
    Entry(vendorID: "1a86", productIDs: 0x7523...0x7523, name: "WCH CH340 USB–serial", isReceiver: false),
  ]

  public static func lookup(vendorID: String, productID: String) -> Entry? {
    guard let product = Int(productID, radix: 16) else { return nil }
    return table.first { $0.vendorID == vendorID.lowercased() && $0.productIDs.contains(product) }
  }
}

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
      hint = errno == ENOENT
        ? "The device node is missing: is it plugged in?"
        : "Add yourself to the 'dialout' group (sudo usermod -aG dialout $USER, then log in again) or install the udev rules from udev/."
    }
    return SerialDevice(
      path: stablePath ?? node, node: node, kernelName: kernelName, driver: driver, vendorID: vendor, productID: product,
      manufacturer: manufacturer, product: productName, knownAs: entry?.name, isKnownReceiver: entry?.isReceiver ?? false,
      isAccessible: accessible, accessHint: hint)
  }

  /// The receiver the bridge should use without being told: a known receiver, else a USB
  /// serial device whose product string says GPS or GNSS, else nothing (a bare bridge chip
  /// may be anything, so it is only used when asked for).
  public func preferredReceiver() -> SerialDevice? {
    let all = devices()
    return all.first { $0.isKnownReceiver }
      ?? all.first { device in
        let text = ((device.product ?? "") + " " + (device.manufacturer ?? "")).lowercased()
        return text.contains("gps") || text.contains("gnss")
      }
  }

  // MARK: File system

  func entries(_ directory: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
  }

  func links(in directory: String) -> [String: String] {
    var result: [String: String] = [:]
    for name in entries(directory) {
      let path = directory + "/" + name
      if let target = readLink(path) { result[path] = target }
    }
    return result
  }

  func readLink(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Follows links to the final path.
  func realPath(_ path: String) -> String? {
    guard let pointer = realpath(path, nil) else { return nil }
    defer { free(pointer) }
    return String(validatingCString: pointer)
  }

  func read(_ path: String) -> String? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    let text = String(decoding: data, as: UTF8.self)
    let trimmed = text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
    return trimmed.isEmpty ? nil : String(trimmed)
  }
}
