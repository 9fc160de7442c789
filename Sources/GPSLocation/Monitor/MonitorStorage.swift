import Plumbing

extension Monitor {
  /// Where a monitor keeps its state: one file per monitor, `NAME.monitor.json`.
  public enum Storage: Hashable, Sendable {
    /// `$STATE_DIRECTORY` (systemd's `StateDirectory=`; the first, when it names several),
    /// else `$XDG_STATE_HOME/gpsbridge`, else `~/.local/state/gpsbridge`.
    case standard
    /// A directory of your choosing (made if missing).
    case directory(String)
    /// Nothing is kept: a monitor over a replay stays deterministic, run after run.
    case none

    /// The directory, or `nil` for ``none``.
    /// - Throws: ``Monitor/Error`` when the standard directory has no home to go in.
    func path() throws(Monitor.Error) -> String? {
      func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
      switch self {
      case .none: return nil
      case .directory(let path): return path
      case .standard:
        if let systemd = variable("STATE_DIRECTORY"), let first = systemd.split(separator: ":").first { return String(first) }
        if let xdg = variable("XDG_STATE_HOME") { return xdg + "/gpsbridge" }
        if let home = variable("HOME") { return home + "/.local/state/gpsbridge" }
        throw Monitor.Error(
          .cannotWrite,
          "No directory for the monitor's state: neither STATE_DIRECTORY, XDG_STATE_HOME nor HOME is set. Give one, or a directory.")
      }
    }
  }

  /// Why a monitor could not be opened or keep its state, with what to do.
  public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
      /// The name cannot be a file's (empty, with a `/`, or starting with a dot).
      case invalidName
      /// The state file exists but cannot be read (permissions): nothing was changed.
      case cannotRead
      /// The state cannot be written (a read-only directory, a full disk): nothing was changed.
      case cannotWrite
      /// Another monitor of the same name and directory has the state open (in this process
      /// or another): nothing was changed.
      case inUse
    }
    public var code: Code
    public var message: String
    public var description: String { message }

    public init(_ code: Code, _ message: String) {
      self.code = code
      self.message = message
    }
  }
}
