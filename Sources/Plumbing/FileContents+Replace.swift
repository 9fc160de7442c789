extension FileContents {
  /// Replaces the file at `path` with `bytes` so that a kill or a power cut at any moment
  /// leaves either the old contents or the new, never a mix: the bytes go to a new file
  /// beside it, are synced, and the new file is renamed over the old; then the directory is
  /// synced, so the rename itself survives. On failure the old file is untouched and the
  /// new one removed.
  package static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws(Errno) {
    let temporary = newFile(for: path)
    let file = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: mode)
    do throws(Errno) {
      try file.writeAll(bytes)
      guard fsync(file.rawValue) == 0 else { throw Errno(rawValue: errno) }
    } catch {
      try? file.close()
      unlink(temporary)
      throw error
    }
    do throws(Errno) {
      // Closed once, whatever close says (the descriptor is gone either way).
      try file.close()
    } catch {
      unlink(temporary)
      throw error
    }
    guard rename(temporary, path) == 0 else {
      let failure = Errno(rawValue: errno)
      unlink(temporary)
      throw failure
    }
    let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    if let handle = try? FileDescriptor.open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) {
      _ = fsync(handle.rawValue)
      try? handle.close()
    }
  }

  /// The new file ``replace(_:with:mode:)`` writes beside `path` before renaming it over:
  /// `PATH.new-PID` (only that process writes it).
  package static func newFile(for path: String) -> String { newFilePrefix(for: path) + "\(getpid())" }

  /// What every process's new file beside `path` starts with.
  package static func newFilePrefix(for path: String) -> String { "\(path).new-" }

  /// Makes the directory `path` and those above it that are missing (mode 0700: state is the
  /// user's own); an existing directory is fine.
  package static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws(Errno) {
    var made = path.hasPrefix("/") ? "/" : ""
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
      made += part + "/"
      guard mkdir(made, mode) == 0 || errno == EEXIST else { throw Errno(rawValue: errno) }
    }
  }
}
