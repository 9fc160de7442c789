import Foundation
import TestHelpers
import Testing

/// The README's Library section, as a newcomer uses it: a package of their own that depends
/// on a clone through the README's own dependency lines, whose program is the README's
/// example (with the simulated receiver the README offers instead of a serial one). It must
/// build in the Swift 6 language mode and end by itself once the replay is over.
@Suite(.timeLimit(.minutes(10))) struct ReadmePackageTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test func theLibraryExampleBuildsFromTheReadmesLinesAndEndsByItself() async throws {
    let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
    let blocks = readme.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
    let dependencyBlock = try #require(blocks.first { $0.contains(".package(path:") })
    let lines = dependencyBlock.split(separator: "\n").map { String($0) }
    let pathIndex = try #require(lines.firstIndex { $0.hasPrefix(".package(path:") })
    let dependency = lines[pathIndex]
    let product = try #require(lines[pathIndex...].first { $0.hasPrefix(".product(") }).components(separatedBy: "//")[0]
    let example = try #require(blocks.first { $0.hasPrefix("import GPSLocation") && $0.contains("for await action in actions") })
    let serialLine = try #require(example.split(separator: "\n").first { $0.hasPrefix("let manager = LocationManager.serial(") })
    let program = example.replacingOccurrences(of: serialLine, with: "let manager = LocationManager.simulated(speed: .max)")
    // The new shape's example, on the demo drive at 25 times its speed.
    let modern = try #require(blocks.first { $0.hasPrefix("import GPSLocation") && $0.contains("LocationUpdate.liveUpdates") })
    let receiverLine = try #require(modern.split(separator: "\n").first { $0.hasPrefix("let receiver = Receiver(SerialSource(") })
    let fences = modern.replacingOccurrences(
      of: receiverLine, with: "let receiver = Receiver(ReplaySource(capture: .simulated(.demoDrive), speed: .multiplied(by: 25)))")

    // The clone under the name the README's path line gives, and the newcomer's package beside it.
    let scratch = scratchDirectory("readme-package")
    // (Its build is some 100 MB; the clone in it is only a link to this repository.)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let clone = scratch.appendingPathComponent(
      try #require(dependency.split(separator: "\"").dropFirst().first).split(separator: "/").last.map(String.init) ?? "")
    try? FileManager.default.removeItem(at: clone)
    try FileManager.default.createSymbolicLink(at: clone, withDestinationURL: Self.repository)
    let app = scratch.appendingPathComponent("app")
    try FileManager.default.createDirectory(at: app.appendingPathComponent("Sources/app"), withIntermediateDirectories: true)
    let manifest = """
      // swift-tools-version:6.1
      import PackageDescription

      let package = Package(
        name: "app",
        dependencies: [\(dependency)],
        targets: [
          .executableTarget(name: "app", dependencies: [\(product)]),
          .executableTarget(name: "fences", dependencies: [\(product)]),
        ]
      )
      """
    try Data(manifest.utf8).write(to: app.appendingPathComponent("Package.swift"))
    try Data(program.utf8).write(to: app.appendingPathComponent("Sources/app/main.swift"))
    try FileManager.default.createDirectory(at: app.appendingPathComponent("Sources/fences"), withIntermediateDirectories: true)
    try Data(fences.utf8).write(to: app.appendingPathComponent("Sources/fences/main.swift"))

    let swift = URL(fileURLWithPath: "/usr/bin/env")
    let build = try await runProgram(swift, ["swift", "build", "--package-path", app.path], timeout: 540)
    #expect(build.status == 0, "\(build.output.suffix(3000))\(build.error.suffix(2000))")
    guard build.status == 0 else { return }
    let run = try await runProgram(app.appendingPathComponent(".build/debug/app"), [], timeout: 60)
    #expect(run.endedByItself && run.status == 0, "\(run.error)")
    let printed = run.output.split(separator: "\n")
    #expect(printed.first?.hasPrefix("LocationCoordinate2D(latitude: 47.37") == true, "\(printed.prefix(3))")
    #expect(printed.last?.hasPrefix("End of capture") == true, "\(printed.suffix(3))")

    // The monitor keeps its state where XDG says; the run ends with the capture.
    let state = scratch.appendingPathComponent("state")
    let modernRun = try await runProgram(
      URL(fileURLWithPath: "/usr/bin/env"), ["XDG_STATE_HOME=\(state.path)", app.appendingPathComponent(".build/debug/fences").path],
      timeout: 60)
    #expect(modernRun.endedByItself && modernRun.status == 0, "\(modernRun.error)")
    let said = modernRun.output.split(separator: "\n")
    #expect(said.first?.hasPrefix("LocationCoordinate2D(latitude: 47.37") == true, "\(said.prefix(3))")
    #expect(said.contains { $0.hasPrefix("shop satisfied 2024-05-01 08:00:") }, "\(said.filter { $0.hasPrefix("shop") })")
    #expect(said.contains { $0.hasSuffix("standing") }, "a stop at the shop")
    #expect(FileManager.default.fileExists(atPath: state.appendingPathComponent("gpsbridge/fences.monitor.json").path))
  }
}
