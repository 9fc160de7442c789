/// USB ids of GPS receivers and of the USB–serial bridges they are built on.
package enum KnownReceivers {
  package struct Entry: Sendable {
    package var vendorID: String
    package var productIDs: ClosedRange<Int>
    package var name: String
    /// True for a GPS receiver's own id; false for a bridge chip that may carry one.
    package var isReceiver: Bool
  }

  package static let table: [Entry] = [
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

  package static func lookup(vendorID: String, productID: String) -> Entry? {
    guard let product = Int(productID, radix: 16) else { return nil }
    return table.first { $0.vendorID == vendorID.lowercased() && $0.productIDs.contains(product) }
  }
}
