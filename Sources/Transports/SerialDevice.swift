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
  /// What the USB id says this is, when it is in `KnownReceivers`.
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
