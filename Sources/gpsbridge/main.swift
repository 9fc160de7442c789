// gpsbridge: read a GPS receiver (or gpsd, or a capture) and print location events.
// Exit status: 0 success, 1 runtime failure, 64 usage error (EX_USAGE).
import GPSLocation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// Before anything else: Ctrl-C and SIGTERM are ours, and never lost (Interruption).
Interruption.install()
// A closed stdout is handled where we write (EPIPE ends the program quietly).
signal(SIGPIPE, SIG_IGN)

let command: Command
do {
  command = try parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  Interruption.restoreDefault()
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
  Interruption.cancelOnSignal(task)
  return await task.value
}

switch command {
case .help(let topic):
  Terminal.write(Help.text(topic) + "\n")
  exit(0)
case .manual(let topic):
  Terminal.write(ManPage.roff(topic, date: GPSBridge.releaseDate))
  exit(0)
case .time(let options):
  Interruption.restoreDefault()
  exit(checkTime(options))
case .ntrip(let options):
  Interruption.restoreDefault()
  exit(listMountpoints(options))
case .completion(let options):
  Terminal.write(options.shell == "zsh" ? ShellCompletion.zsh : ShellCompletion.bash)
  exit(0)
case .version:
  Terminal.write("gpsbridge \(GPSBridge.version)\n")
  exit(0)
case .check(let options):
  Interruption.restoreDefault()
  exit(check(options))
case .devices(let options):
  Interruption.restoreDefault()
  exit(listDevices(options))
case .simulate(let options):
  exit(await runInterruptibly { await simulate(options) })
case .record(let options):
  exit(await runInterruptibly { await record(options) })
case .serve(let options):
  exit(await runInterruptibly { await serve(options) })
case .configure(let options):
  exit(await runInterruptibly { await configure(options) })
case .run(let options):
  exit(await runInterruptibly { await run(options) })
}
