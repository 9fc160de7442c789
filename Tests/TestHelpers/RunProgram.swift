import Foundation
import Plumbing

/// What a program printed and how it ended.
public struct ProgramOutput: Sendable {
  public var status: Int32
  public var output: String
  public var error: String
  /// Whether it ended by itself before the time limit.
  public var endedByItself: Bool
}

/// Runs a program to its end (or `timeout`, when it is asked to stop and then made to),
/// giving what it printed. The waiting happens on a thread of its own, never on the
/// cooperative pool, so other tests run on meanwhile however many programs are waited for.
/// Without `captures` its output goes nowhere: for a program that leaves a daemon holding the
/// pipes (tmux), whose end would never come.
public func runProgram(
  _ executable: URL, _ arguments: [String], input: Data? = nil, timeout: TimeInterval = 30, captures: Bool = true
) async throws -> ProgramOutput {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  let output = Pipe(), error = Pipe(), stdin = Pipe()
  process.standardOutput = captures ? output : FileHandle.nullDevice
  process.standardError = captures ? error : FileHandle.nullDevice
  process.standardInput = input == nil ? FileHandle.nullDevice : stdin
  // With the signals unblocked that the calling thread (one of Dispatch's) blocks: a child
  // inherits the mask, and one that cannot hear SIGTERM is killed after the grace instead,
  // losing what it had buffered.
  try process.runWithSignalsUnblocked()
  if let input {
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
  }
  return await finish(process, reading: captures ? [output, error] : [], timeout: timeout)
}

/// Waits for a started process, reading its output and error pipes to their end, and stops it
/// with `stop` after `timeout` (asked first, so it can write out what it buffered; then made
/// to). The waiting happens on a thread of its own.
public func finish(
  _ process: Process, reading pipes: [Pipe], timeout: TimeInterval, stop: @escaping @Sendable (Process) -> Void = { $0.terminate() }
) async -> ProgramOutput {
  return await withCheckedContinuation { continuation in
    Thread.detachNewThread {
      continuation.resume(returning: waitForExit(process, reading: pipes, timeout: timeout, stop: stop))
    }
  }
}

private func waitForExit(_ process: Process, reading pipes: [Pipe], timeout: TimeInterval, stop: (Process) -> Void) -> ProgramOutput {
  let collected = Locked<[Int: Data]>([:])
  let group = DispatchGroup()
  // Each blocking wait on a thread of its own, never on Dispatch's global queue: on Linux
  // that is the same few threads (one per core) as Swift's cooperative pool, and a program
  // that ran for a minute held two of them, stalling every async test in the process.
  for (index, pipe) in pipes.enumerated() {
    group.enter()
    Thread.detachNewThread {
      let data = pipe.fileHandleForReading.readDataToEndOfFile()
      collected.withLock { $0[index] = data }
      group.leave()
    }
  }
  if pipes.isEmpty {
    // Nothing to read to its end: its exit is watched for (waitUntilExit on a dispatch thread
    // does not always hear of it).
    group.enter()
    Thread.detachNewThread {
      _ = eventuallyBlocking(timeout: .seconds(timeout + 60)) { !process.isRunning }
      group.leave()
    }
  }
  let endedByItself = group.wait(timeout: .now() + timeout) == .success
  if !endedByItself {
    stop(process)
    if group.wait(timeout: .now() + 2) == .timedOut { kill(process.processIdentifier, SIGKILL) }
    group.wait()
  }
  // Foundation learns of the exit on a dispatch thread of its own: a loaded full run asked for
  // the status of a program whose pipes had closed before Foundation had heard it end, and its
  // `terminationStatus` trapped, ending the whole test process (SIGILL). Asked only once it
  // is known; a program still running then is killed (its status is then 9, or -1 if
  // Foundation has still not heard of its end).
  process.waitForExit(bound: .seconds(120))
  if process.isRunning {
    kill(process.processIdentifier, SIGKILL)
    process.waitForExit()
  }
  let texts = collected.withLock { data in (0..<2).map { String(decoding: data[$0] ?? Data(), as: UTF8.self) } }
  return ProgramOutput(status: process.exitStatus ?? -1, output: texts[0], error: texts[1], endedByItself: endedByItself)
}
