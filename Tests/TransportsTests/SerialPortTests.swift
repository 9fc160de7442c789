import Foundation
import SourceStatus
import TestHelpers
import Testing

@testable import Transports

/// Exclusive use of a serial device, taken on open and given back on close.
@Suite struct SerialPortTests {
  /// The test helper's pty, once unplugged, is gone for whoever waits on its path, and its
  /// number is not the next pty's: a reader that waits for `/dev/pts/N` to come back (as a
  /// source given that path does) would otherwise take the next test's device as a replug.
  @Test func anUnpluggedPtysPathIsNotTheNextPtys() throws {
    let first = try PseudoTerminal()
    let path = first.slavePath
    first.unplug()
    #expect(access(path, F_OK) != 0, "the device node is gone")
    let next = try PseudoTerminal()
    defer { next.unplug() }
    #expect(next.slavePath != path)
    #expect(access(path, F_OK) != 0)
  }

  @Test func aSecondOpenIsRefusedAsBusy() throws {
    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    let port = try SerialPort.open(pty.slavePath, baudRate: 9600)
    defer { port.close() }
    #expect(throws: SourceError.deviceBusy(path: pty.slavePath)) { try SerialPort.open(pty.slavePath, baudRate: 9600) }
  }

  /// A process this one starts shares each open file from its fork until its exec closes it
  /// (close-on-exec): a copy of the port's descriptor that outlives `close()` for a moment. The
  /// port must be free at once all the same, or a manager started right after another stopped
  /// is told the device is busy (seen in full test runs, where other tests start processes).
  @Test func aClosedPortIsFreeAtOnceWhileACopyOfItsDescriptorLives() throws {
    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    let port = try SerialPort.open(pty.slavePath, baudRate: 9600)
    let copy = dup(port.descriptor.rawValue)
    #expect(copy >= 0)
    defer { close(copy) }
    port.close()
    let next = try SerialPort.open(pty.slavePath, baudRate: 9600)
    next.close()
  }
}
