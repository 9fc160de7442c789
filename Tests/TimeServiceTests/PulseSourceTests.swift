import Foundation
import Plumbing
import TestHelpers
import Testing

@testable import TimeService

/// The PPS inputs' errors, as this machine can give them: it has no PPS device, and a
/// pseudo-terminal has no modem lines. (Permission denied cannot be shown to root.)
struct PulseSourceTests {
  static func failure(_ body: () throws(PPSDevice.Failure) -> Void) -> String? {
    do {
      try body()
      return nil
    } catch {
      return error.description
    }
  }

  @Test func aFileThatIsNotAPPSDeviceIsNamedSo() {
    let message = Self.failure { () throws(PPSDevice.Failure) in _ = try PPSDevice(path: "/dev/null") }
    #expect(message?.contains("/dev/null is not a PPS device") == true, "\(message ?? "")")
  }

  /// A device refused is closed once: a second close (a throwing init's `deinit` after its own
  /// close) would close whatever another thread opened under the same number meanwhile, in
  /// the program as in the tests (a gpsd client's socket, once, in a full run).
  @Test func aRefusedDeviceIsClosedOnceNotAgainUnderAnotherThreadsFeet() async throws {
    let stop = Locked(false)
    let badDescriptors = Locked(0)
    let finished = DispatchSemaphore(value: 0)
    // Another thread opens, reads and closes a file in a loop: the lowest free number, the
    // one a refused device has just given back.
    Thread.detachNewThread {
      var byte: UInt8 = 0
      while !stop.withLock({ $0 }) {
        let descriptor = open("/dev/zero", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { continue }
        for _ in 0..<4 where read(descriptor, &byte, 1) < 0 && errno == EBADF { badDescriptors.withLock { $0 += 1 } }
        close(descriptor)
      }
      finished.signal()
    }
    try await offThePool {
      for _ in 0..<3000 {
        _ = Self.failure { () throws(PPSDevice.Failure) in _ = try PPSDevice(path: "/dev/null") }
      }
    }
    stop.withLock { $0 = true }
    finished.wait()
    #expect(badDescriptors.withLock { $0 } == 0)
  }

  @Test func aMissingPPSDeviceSaysWhichDriverMakesIt() {
    let message = Self.failure { () throws(PPSDevice.Failure) in _ = try PPSDevice(path: "/dev/pps-gpsbridge-none") }
    #expect(message?.contains("does not exist: is the PPS driver loaded") == true, "\(message ?? "")")
  }

  @Test func aPseudoTerminalHasNoModemLineToWaitOn() throws {
    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    let message = Self.failure { () throws(PPSDevice.Failure) in _ = try ModemLineWaiter(path: pty.slavePath, line: .dcd) }
    #expect(message?.contains("has no modem lines to wait on") == true, "\(message ?? "")")
  }

  @Test func theSourcesAreNamedAsOnTheCommandLine() {
    #expect(PulseSource(parsing: "/dev/pps0") == .device("/dev/pps0"))
    #expect(PulseSource(parsing: "dcd") == .modemLine(.dcd))
    #expect(PulseSource(parsing: "cts") == .modemLine(.cts))
    #expect(PulseSource(parsing: "pps0") == nil)
  }
}

/// How several receivers' refclocks are named: each its own, as gpsd names its.
struct RefclockNamingTests {
  @Test func eachReceiverHasItsOwnSocketAndItsOwnPairOfUnits() {
    let outputs = ClockFeed.Outputs(chrony: "/run/chrony.sock", sharedMemoryUnit: 2, pulses: true)
    let second = outputs.receiver(named: "/dev/ttyUSB1", number: 1)
    #expect(second.chrony == "/run/chrony.ttyUSB1.sock" && second.pulseChrony == "/run/chrony.ttyUSB1-pps.sock")
    #expect(second.sharedMemoryUnit == 4 && second.pulseSharedMemoryUnit == 5)
    let first = outputs.receiver(named: "/dev/serial/by-id/usb-u-blox_AG-if00", number: 0)
    #expect(first.chrony == "/run/chrony.usb-u-blox_AG-if00.sock" && first.sharedMemoryUnit == 2)
    #expect(ClockFeed.Outputs(chrony: "/run/gps").receiver(named: "/dev/gps 0", number: 0).chrony == "/run/gps.gps_0")
  }
}
