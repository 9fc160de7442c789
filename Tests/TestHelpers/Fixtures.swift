import Foundation

/// The repository's `Fixtures` folder, found from this file's place in the tree.
public let fixturesDirectory = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
