import Foundation

/// The built `gpsbridge`, beside the test bundle in the build folder.
public enum Gpsbridge {
  public static let executable: String = {
    let me = URL(
      fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    var directory = me.deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("gpsbridge").path), directory.path != "/" {
      directory = directory.deletingLastPathComponent()
    }
    return directory.appendingPathComponent("gpsbridge").path
  }()

  /// Starts the built program with `arguments`, its output discarded; the caller stops it.
  public static func start(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    // Able to hear SIGTERM (a pool thread's mask blocks it), so `terminate()` stops it.
    try process.runWithSignalsUnblocked()
    return process
  }
}
