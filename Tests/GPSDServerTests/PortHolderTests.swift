import Testing

@testable import GPSDServer

/// Who holds a port, read from the kernel's socket tables.
@Suite struct PortHolderTests {
  static let table = """
      sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
       0: 0100007F:0B83 00000000:0000 0A 00000000:00000000 00:00000000 00000000   118        0 41234 1 0000000000000000 100 0 0 10 0
       1: 0100007F:0B83 0100007F:D2C4 01 00000000:00000000 00:00000000 00000000   118        0 0 1 0000000000000000 20 4 30 10 -1
       2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1777 1 0000000000000000 100 0 0 10 0
    """

  @Test func onlyTheListeningSocketOfThePortCounts() {
    #expect(PortHolder.listeningInodes(port: 2947, table: Self.table) == ["41234"])
    #expect(PortHolder.listeningInodes(port: 22, table: Self.table) == ["1777"])
    #expect(PortHolder.listeningInodes(port: 2948, table: Self.table) == [])
  }

  @Test func aPortNobodyListensOnHasNoHolder() {
    #expect(PortHolder.find(port: 2947) { _ in Self.table.replacingOccurrences(of: " 0A ", with: " 01 ") } == nil)
  }
}
