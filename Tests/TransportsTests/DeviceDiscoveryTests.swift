import Foundation
import TestHelpers
import Testing
import Transports

/// Discovery against a sysfs and /dev tree built in a temporary folder, shaped like the
/// kernel's: a CP210x dongle (ttyUSB0) with a by-id link, a u-blox receiver (ttyACM0), and
/// a motherboard UART (ttyS0) that must not be listed.
@Suite final class DeviceDiscoveryTests {
  let root: URL

  deinit { try? FileManager.default.removeItem(at: root) }

  init() throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("gpsbridge-sysfs-\(UUID().uuidString)")
    let files = FileManager.default
    func directory(_ path: String) throws {
      try files.createDirectory(at: root.appendingPathComponent(path), withIntermediateDirectories: true)
    }
    func file(_ path: String, _ text: String) throws { try Data((text + "\n").utf8).write(to: root.appendingPathComponent(path)) }
    func link(_ path: String, _ target: String) throws {
      try files.createSymbolicLink(atPath: root.appendingPathComponent(path).path, withDestinationPath: target)
    }

    try directory("sys/bus/usb-serial/drivers/cp210x")
    try directory("sys/bus/usb/drivers/cdc_acm")
    // CP210x: the tty's device is the USB interface; the ids sit on its parent.
    try directory("sys/devices/pci0000:00/usb1/1-1/1-1:1.0/ttyUSB0")
    try file("sys/devices/pci0000:00/usb1/1-1/idVendor", "10c4")
    try file("sys/devices/pci0000:00/usb1/1-1/idProduct", "ea60")
    try file("sys/devices/pci0000:00/usb1/1-1/manufacturer", "Silicon Labs")
    try file("sys/devices/pci0000:00/usb1/1-1/product", "CP2102 USB to UART Bridge Controller")
    try link(
      "sys/devices/pci0000:00/usb1/1-1/1-1:1.0/ttyUSB0/driver", root.appendingPathComponent("sys/bus/usb-serial/drivers/cp210x").path)
    // u-blox: ACM, ids on the interface's parent too.
    try directory("sys/devices/pci0000:00/usb1/1-2/1-2:1.0")
    try file("sys/devices/pci0000:00/usb1/1-2/idVendor", "1546")
    try file("sys/devices/pci0000:00/usb1/1-2/idProduct", "01a8")
    try file("sys/devices/pci0000:00/usb1/1-2/product", "u-blox GNSS receiver")
    try link("sys/devices/pci0000:00/usb1/1-2/1-2:1.0/driver", root.appendingPathComponent("sys/bus/usb/drivers/cdc_acm").path)
    try directory("sys/devices/platform/serial8250/tty/ttyS0")
    try directory("sys/class/tty/ttyUSB0")
    try directory("sys/class/tty/ttyACM0")
    try directory("sys/class/tty/ttyS0")
    try link("sys/class/tty/ttyUSB0/device", root.appendingPathComponent("sys/devices/pci0000:00/usb1/1-1/1-1:1.0/ttyUSB0").path)
    try link("sys/class/tty/ttyACM0/device", root.appendingPathComponent("sys/devices/pci0000:00/usb1/1-2/1-2:1.0").path)
    try link("sys/class/tty/ttyS0/device", root.appendingPathComponent("sys/devices/platform/serial8250").path)

    try directory("dev/serial/by-id")
    try file("dev/ttyUSB0", "")
    try file("dev/ttyACM0", "")
    try file("dev/ttyS0", "")
    try link("dev/serial/by-id/usb-Silicon_Labs_CP2102_0001-if00-port0", "../../ttyUSB0")
  }

  var discovery: DeviceDiscovery {
    DeviceDiscovery(sysfsRoot: root.appendingPathComponent("sys").path, devRoot: root.appendingPathComponent("dev").path)
  }

  @Test func listsUSBSerialDevicesKnownReceiversFirst() {
    let devices = discovery.devices()
    #expect(devices.map(\.kernelName) == ["ttyACM0", "ttyUSB0"])
  }

  @Test func describesAReceiverByItsUSBIdentity() throws {
    let ublox = try #require(discovery.devices().first)
    #expect(ublox.usbID == "1546:01a8" && ublox.isKnownReceiver && ublox.knownAs == "u-blox GNSS receiver")
    #expect(ublox.driver == "cdc_acm" && ublox.product == "u-blox GNSS receiver")
    #expect(ublox.path == root.appendingPathComponent("dev/ttyACM0").path)
  }

  @Test func prefersTheStableByIDPathAndNamesTheBridgeChip() throws {
    let dongle = try #require(discovery.devices().last)
    #expect(dongle.path.hasSuffix("/dev/serial/by-id/usb-Silicon_Labs_CP2102_0001-if00-port0"))
    #expect(dongle.node.hasSuffix("/dev/ttyUSB0") && dongle.driver == "cp210x")
    #expect(dongle.usbID == "10c4:ea60" && !dongle.isKnownReceiver && dongle.knownAs?.contains("CP210x") == true)
    #expect(dongle.manufacturer == "Silicon Labs")
  }

  @Test func thePreferredReceiverIsTheKnownOne() {
    #expect(discovery.preferredReceiver()?.kernelName == "ttyACM0")
  }

  @Test func accessIsReportedWithTheFix() throws {
    // Files we created are accessible to us; a missing node is not, and says why.
    #expect(discovery.devices().allSatisfy { $0.isAccessible })
    let missing = discovery.describe(path: root.appendingPathComponent("dev/ttyUSB9").path)
    #expect(!missing.isAccessible && missing.accessHint == "The device node is missing: is it plugged in?")
  }

  @Test func knownReceiverTableCoversTheCommonIDs() {
    for (vendor, product, receiver) in [
      ("1546", "01a5", true), ("1546", "01a9", true), ("10c4", "ea60", false), ("067b", "2303", false), ("0403", "6001", false),
      ("091e", "0003", true),
    ] {
      let entry = KnownReceivers.lookup(vendorID: vendor, productID: product)
      #expect(entry?.isReceiver == receiver, "\(vendor):\(product)")
    }
    #expect(KnownReceivers.lookup(vendorID: "1546", productID: "01aa") == nil)
  }
}

@Suite struct UdevRulesTests {
  static let rulesFile = fixturesDirectory.deletingLastPathComponent().appendingPathComponent("udev/99-gpsbridge.rules")

  /// Each rule is comma-separated KEY op "value" pairs with keys and operators udev knows.
  @Test func everyRuleIsWellFormed() throws {
    let text = try String(contentsOf: Self.rulesFile, encoding: .utf8)
    let rules = text.split(separator: "\n").map(String.init).filter {
      !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty
    }
    #expect(rules.count >= 8)
    let pair = try Regex(
      #"^(SUBSYSTEM|ATTRS\{idVendor\}|ATTRS\{idProduct\}|ATTRS\{serial\}|GROUP|MODE|SYMLINK|ENV\{ID_MM_DEVICE_IGNORE\})(==|=|\+=)"([^"]*)"$"#
    )
    for rule in rules {
      var keys: [String: String] = [:]
      for part in rule.components(separatedBy: ", ") {
        let match = try #require(try pair.wholeMatch(in: part), "bad pair '\(part)' in: \(rule)")
        let key = String(match.output[1].substring!)
        let op = String(match.output[2].substring!)
        keys[key] = String(match.output[3].substring!)
        let isMatch = key == "SUBSYSTEM" || key.hasPrefix("ATTRS")
        #expect(isMatch ? op == "==" : op != "==", "operator \(op) for \(key) in: \(rule)")
      }
      #expect(keys["SUBSYSTEM"] == "tty", "\(rule)")
      #expect(isFourHexDigits(keys["ATTRS{idVendor}"]), "\(rule)")
      #expect(isFourHexDigits(keys["ATTRS{idProduct}"]), "\(rule)")
      #expect(keys["ENV{ID_MM_DEVICE_IGNORE}"] == "1", "every rule keeps ModemManager away: \(rule)")
      if let mode = keys["MODE"] { #expect(mode == "0660" && keys["GROUP"] == "dialout") }
      if let link = keys["SYMLINK"] { #expect(link == "gps%n") }
    }
  }

  @Test func everyKnownReceiverHasARuleWithAStableLink() throws {
    let text = try String(contentsOf: Self.rulesFile, encoding: .utf8)
    for entry in KnownReceivers.table where entry.isReceiver && entry.vendorID != "1199" && entry.vendorID != "2c7c" {
      #expect(text.contains("ATTRS{idVendor}==\"\(entry.vendorID)\""), "\(entry.name)")
    }
  }
}

func isFourHexDigits(_ text: String?) -> Bool {
  guard let text, text.count == 4 else { return false }
  return text.allSatisfy { "0123456789abcdef".contains($0) }
}
