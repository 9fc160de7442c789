// gpsbridge: read a GPS receiver (or gpsd, or a capture) and print location events.
// Exit status: 0 success, 1 runtime failure, 64 usage error (EX_USAGE).
import Dispatch
import GPSLocation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// A closed stdout is handled where we write (EPIPE ends the program quietly).
signal(SIGPIPE, SIG_IGN)

let command: Command
do {
  command = try parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  Terminal.diagnostic("Error: \(error.message)")
  Terminal.diagnostic(lines: "Usage: \(Help.usage(error.topic))")
  Terminal.diagnostic(
    "  See '\(error.topic == .main ? "gpsbridge --help" : "gpsbridge help \(error.topic.rawValue)")' for more information.")
  exit(64)
}

/// Runs `work` and exits with its status, stopping it cleanly on Ctrl-C or SIGTERM: the work
/// sees cancellation, lets its source go (device closed, file complete) and returns. The top
/// level itself never awaits, so a command that only prints (`--version`) starts no
/// concurrency runtime: the work's task runs from Dispatch's main loop.
func runInterruptibly(_ work: @escaping @Sendable () async -> Int32) -> Never {
  let task = Task.detached { await work() }
  Interruption.cancelOnSignal(task)
  Task.detached { exit(await task.value) }
  dispatchMain()
}

// What only prints answers at once, before any thread of ours starts: `--version` costs what a
// program's start costs, and no more.
switch command {
case .help(let topic):
  Terminal.write(Help.text(topic) + "\n")
  exit(0)
case .manual(let topic):
  Terminal.write(ManPage.roff(topic, date: GPSBridge.releaseDate))
  exit(0)
case .completion(let options):
  Terminal.write(options.shell == "zsh" ? ShellCompletion.zsh : ShellCompletion.bash)
  exit(0)
case .version:
  Terminal.write("gpsbridge \(GPSBridge.version)\n")
  exit(0)
default: break
}

// Before any work: Ctrl-C and SIGTERM are ours, and never lost (Interruption).
Interruption.install()

switch command {
case .help, .manual, .completion, .version:
  exit(0)
case .time(let options):
  Interruption.restoreDefault()
  exit(checkTime(options))
case .ntrip(let options):
  // Ctrl-C ends it as it would any short command: nothing to undo.
  Interruption.restoreDefault()
  Task.detached { exit(await listMountpoints(options)) }
  dispatchMain()
case .check(let options):
  Interruption.restoreDefault()
  exit(check(options))
case .devices(let options):
  Interruption.restoreDefault()
  exit(listDevices(options))
case .simulate(let options):
  runInterruptibly { await simulate(options) }
case .record(let options):
  runInterruptibly { await record(options) }
case .serve(let options):
  runInterruptibly { await serve(options) }
case .configure(let options):
  runInterruptibly { await configure(options) }
case .run(let options):
  runInterruptibly { await run(options) }
}
