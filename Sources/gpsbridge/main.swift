// gpsbridge: read a GPS receiver (or gpsd, or a capture) and print location events.
// Exit status: 0 success, 1 runtime failure, 64 usage error (EX_USAGE).
import Dispatch
import GPSLocation
import Plumbing

let version = "0.1.0"

// A closed stdout is handled where we write (EPIPE ends the program quietly).
signal(SIGPIPE, SIG_IGN)

let command: Command
do {
  command = try parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  Terminal.diagnostic("Error: \(error.message)")
  Terminal.diagnostic("Usage: \(Help.usage(error.topic))")
  Terminal.diagnostic(
    "  See '\(error.topic == .main ? "gpsbridge --help" : "gpsbridge help \(error.topic.rawValue)")' for more information.")
  exit(64)
}

/// Runs `work`, stopping it cleanly on Ctrl-C or SIGTERM: the work sees cancellation, lets
/// its source go (device closed, file complete) and returns.
func runInterruptibly(_ work: @escaping @Sendable () async -> Int32) async -> Int32 {
  let task = Task { await work() }
  var sources: [any DispatchSourceSignal] = []
  for signalNumber in [SIGINT, SIGTERM] {
    signal(signalNumber, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
    source.setEventHandler { task.cancel() }
    source.resume()
    sources.append(source)
  }
  let status = await task.value
  for source in sources { source.cancel() }
  return status
}

switch command {
case .help(let topic):
  Terminal.write(Help.text(topic) + "\n")
  exit(0)
case .version:
  Terminal.write("gpsbridge \(version)\n")
  exit(0)
case .check(let options):
  exit(check(options))
case .devices(let options):
  exit(listDevices(options))
case .simulate(let options):
  exit(await runInterruptibly { await simulate(options) })
case .record(let options):
  exit(await runInterruptibly { await record(options) })
case .serve(let options):
  exit(await runInterruptibly { await serve(options) })
case .run(let options):
  exit(await runInterruptibly { await run(options) })
}
