import Foundation

/// A machine's device tree of the test's own: an empty `/sys` and `/dev` into which a receiver
/// can be plugged (its sysfs description, then its node: a link to a pseudo-terminal), as the
/// kernel and udev do it. The program reads it through `GPSBRIDGE_SYSFS_ROOT` and
/// `GPSBRIDGE_DEV_ROOT`; the library through `DeviceDiscovery(sysfsRoot:devRoot:)`.
public struct ScratchMachine: Sendable {
  public let sysfsRoot: String
  public let devRoot: String

  /// A machine with nothing plugged in, under a scratch directory named `name`.
  public init(_ name: String) throws {
    let root = scratchDirectory("gpsbridge-machine-\(name)-\(UUID().uuidString.prefix(8))")
    sysfsRoot = root.appendingPathComponent("sys").path
    devRoot = root.appendingPathComponent("dev").path
    for folder in [sysfsRoot + "/class/tty", devRoot] {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
  }

  /// The environment that points the program at this machine.
  public var environment: [String: String] { ["GPSBRIDGE_SYSFS_ROOT": sysfsRoot, "GPSBRIDGE_DEV_ROOT": devRoot] }

  /// Plugs in a USB receiver as `kernelName` (vendor and product ids as its descriptor gives
  /// them, a u-blox 9 by default) whose node is `pty`'s slave; returns the node's path.
  @discardableResult
  public func plugIn(
    _ pty: PseudoTerminal, as kernelName: String = "ttyACM0", vendor: String = "1546", product: String = "01a9",
    productName: String = "u-blox GNSS receiver"
  ) throws -> String {
    let device = sysfsRoot + "/class/tty/\(kernelName)/device"
    try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
    for (file, text) in [("idVendor", vendor), ("idProduct", product), ("product", productName), ("manufacturer", "u-blox AG")] {
      try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: device + "/" + file))
    }
    let node = devRoot + "/" + kernelName
    guard symlink(pty.slavePath, node) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    return node
  }

  /// Adds the `by-id` link udev makes a moment after the node.
  public func addStableLink(_ name: String, to kernelName: String) throws {
    let folder = devRoot + "/serial/by-id"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    guard symlink("../../" + kernelName, folder + "/" + name) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  }
}
