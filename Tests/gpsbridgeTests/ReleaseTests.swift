import Foundation
import TestHelpers
import Testing

/// The version is written once and read everywhere; `Scripts/release` tags only a release the
/// CHANGELOG describes, from a clean tree, once.
@Suite struct ReleaseTests {
  static let repository = Program.fixtures.deletingLastPathComponent()

  static var writtenVersion: String {
    get throws {
      let text = try String(contentsOf: repository.appendingPathComponent("Sources/Plumbing/Release.swift"), encoding: .utf8)
      let line = try #require(text.split(separator: "\n").first { $0.contains("static let version") })
      return String(try #require(line.split(separator: "\"").dropFirst().first))
    }
  }

  @Test func versionPrintsTheOneWrittenVersion() async throws {
    let result = try await Program.run(["--version"])
    #expect(result.output == "gpsbridge \(try Self.writtenVersion)\n")
  }

  @Test func theChangelogHasADatedSectionForTheVersionBelowUnreleased() throws {
    let changelog = try String(contentsOf: Self.repository.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
    let version = try Self.writtenVersion
    let unreleased = try #require(changelog.range(of: "\n## [Unreleased]\n"))
    let section = try #require(changelog.range(of: "\n## [\(version)] - "))
    #expect(unreleased.lowerBound < section.lowerBound)
    #expect(changelog.contains("Keep a Changelog") && changelog.contains("Semantic Versioning"))
  }

  /// A repository of its own holding the script, the version and a CHANGELOG, committed.
  func scratchRepository(changelog: String? = nil) throws -> URL {
    let root = scratchDirectory("release-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.removeItem(at: root)
    for path in ["Scripts/release", "Sources/Plumbing/Release.swift", "CHANGELOG.md"] {
      let target = root.appendingPathComponent(path)
      try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
      try FileManager.default.copyItem(at: Self.repository.appendingPathComponent(path), to: target)
    }
    if let changelog { try Data(changelog.utf8).write(to: root.appendingPathComponent("CHANGELOG.md")) }
    let setup = git(root, "init -q && git add -A && git -c user.name=t -c user.email=t@example.invalid commit -q -m first")
    #expect(setup.status == 0, "\(setup.output)")
    return root
  }

  func git(_ root: URL, _ command: String) -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "cd '\(root.path)' && git \(command) 2>&1"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try? process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitForExit()
    return (process.exitStatus ?? -1, String(decoding: data, as: UTF8.self))
  }

  func release(_ root: URL, _ arguments: [String] = []) async throws -> ProgramOutput {
    try await runProgram(root.appendingPathComponent("Scripts/release"), arguments)
  }

  @Test func tagsACleanTreeOnceWithTheChangelogSectionAsItsMessage() async throws {
    let root = try scratchRepository()
    let version = try Self.writtenVersion
    let first = try await release(root)
    #expect(first.status == 0, "\(first.error)")
    let message = git(root, "tag -n99 -l v\(version)").output
    #expect(message.contains("gpsbridge \(version)") && message.contains("### Added"), "\(message)")
    let again = try await release(root)
    #expect(again.status == 1 && again.error.contains("the tag v\(version) exists already"), "\(again.error)")
  }

  @Test func refusesATreeWithChanges() async throws {
    let root = try scratchRepository()
    try Data("not committed\n".utf8).write(to: root.appendingPathComponent("notes.txt"))
    let result = try await release(root, ["--check"])
    #expect(result.status == 1, "\(result.error)")
    #expect(result.error.contains("not committed"), "\(result.error)")
    #expect(git(root, "tag").output.isEmpty)
  }

  @Test(arguments: [
    ("# Changelog\n\n## [0.0.9] - 2026-01-01\n\n- old\n", "no '## [Unreleased]' section"),
    ("# Changelog\n\n## [Unreleased]\n\n- new\n", "has no section"),
    ("# Changelog\n\n## [Unreleased]\n\n## [VERSION]\n\n- new\n", "needs its date"),
    ("# Changelog\n\n## [Unreleased]\n\n## [VERSION] - 2026-11-25\n\n## [0.0.1] - 2026-01-01\n\n- old\n", "is empty"),
  ])
  func refusesAChangelogThatDoesNotDescribeTheVersion(_ changelog: String, _ reason: String) async throws {
    let root = try scratchRepository(changelog: changelog.replacingOccurrences(of: "VERSION", with: try Self.writtenVersion))
    let result = try await release(root)
    #expect(result.status == 1 && result.error.contains(reason), "\(result.error)")
    #expect(git(root, "tag").output.isEmpty)
  }
}
