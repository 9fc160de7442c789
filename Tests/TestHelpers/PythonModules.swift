import Foundation

/// Python on PATH with the modules a test compares against (pyubx2, pyrtcm, paho-mqtt), which
/// `.ci/run` installs with pip.
public enum PythonModules {
  /// Whether `python3` on PATH imports all of `modules` (asked once per set, at first use).
  public static func available(_ modules: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import " + modules.joined(separator: ", ")]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitForExit(bound: .seconds(30))
    return !process.isRunning && process.terminationStatus == 0
  }

  /// Runs `script` with `python3` and `arguments`; its standard output.
  /// - Throws: when it cannot start, or exits with a failure (its standard error said).
  public static func run(_ script: String, arguments: [String]) async throws -> String {
    let result = try await runProgram(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script] + arguments, timeout: 60)
    guard result.status == 0 else {
      throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "python3 exited with \(result.status): \(result.error)"])
    }
    return result.output
  }
}
