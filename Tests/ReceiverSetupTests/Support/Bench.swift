import Foundation
import NMEA
import NMEASimulation
import ReceiverSetup
import TestHelpers
import Testing
import Transports

/// A simulated receiver of one kind on a pty, and a running receiver reading it through the
/// serial source, as `gpsbridge configure` reads a real one.
final class Bench: @unchecked Sendable {
  let pty: PseudoTerminal
  let simulated: LiveReceiver
  let receiver: Receiver
  let playing: Task<Void, Never>
  let running: Task<Void, Never>

  convenience init(_ profile: ReceiverProfile, rate: Int, baud: Int, fault: ResponderFault?, onUSB: Bool = false) throws {
    try self.init(profile, rate: rate, baud: baud, responder: profile.responder(rate: rate, baud: baud, fault: fault, onUSB: onUSB))
  }

  /// A bench of `profile` answering as `responder` (a model lacking or refusing keys).
  init(_ profile: ReceiverProfile, rate: Int = 1, baud: Int, responder: (any ReceiverResponder)?) throws {
    pty = try PseudoTerminal()
    let simulation = Simulation(route: Route.demoDrive.lasting(600).startingNow, profile: profile, rate: Double(rate))
    simulated = LiveReceiver(simulation: simulation, port: pty.master, latency: 20, responder: responder)
    receiver = Receiver(SerialSource(path: pty.slavePath, baudRate: .fixed(baud)))
    let simulated = simulated, receiver = receiver
    playing = Task(executorPreference: DedicatedExecutor.own()) { await simulated.run() }
    running = Task(executorPreference: DedicatedExecutor.own()) { await receiver.run() }
  }

  /// A bench whose receiver has opened its port.
  static func running(
    _ profile: ReceiverProfile, rate: Int = 1, baud: Int = 9600, fault: ResponderFault? = nil, onUSB: Bool = false
  ) async throws -> Bench {
    let bench = try Bench(profile, rate: rate, baud: baud, fault: fault, onUSB: onUSB)
    #expect(await bench.pty.waitUntilHeld())
    return bench
  }

  var configuration: any ReceiverResponder { simulated.configuration! }
  var ublox9: UBloxResponder { simulated.configuration as! UBloxResponder }

  /// Pulls the plug: the simulated receiver stops writing, then the line goes, at once.
  /// (Closed under a receiver that went on writing, the number would take its next epoch
  /// while it was perhaps another test's socket: a SIGPIPE that ended a whole run.)
  func unplug() {
    simulated.unplug { pty.unplug() }
  }

  func stop() async {
    running.cancel()
    playing.cancel()
    await running.value
    await playing.value
    pty.unplug()
  }
}

/// The error `work` throws, or `nil` when it succeeds.
func failure<Value>(of work: () async throws -> Value) async -> SetupError? {
  do {
    _ = try await work()
    return nil
  } catch let error as SetupError {
    return error
  } catch {
    Issue.record("not a SetupError: \(error)")
    return nil
  }
}
