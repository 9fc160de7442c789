/// What `gpsbridge completion` was asked to do: print a shell's completion script.
struct CompletionOptions: Equatable {
  var shell = ""

  static let spec = CommandSpec<CompletionOptions>(
    topic: .completion,
    overview: "Print the shell completion script for bash or zsh.",
    discussion: """
      Completes subcommands, options, receivers' device paths after --device and
      profile names after --profile. The Debian package installs both scripts;
      otherwise load one from your shell's start-up file.
      """,
    positionalSynopsis: "<shell>",
    arguments: [("<shell>", "bash or zsh.")],
    options: [],
    examples: [
      #"source <(gpsbridge completion bash)    # in ~/.bashrc"#,
      "gpsbridge completion zsh > ~/.zfunc/_gpsbridge    # with ~/.zfunc in fpath",
    ],
    positional: { options, shell throws(UsageError) in
      guard options.shell.isEmpty else {
        throw UsageError(message: "'completion' takes one shell; '\(shell)' is one too many.", topic: .completion)
      }
      guard ShellCompletion.shells.contains(shell) else {
        throw UsageError(
          message: "completion takes \(ShellCompletion.shells.joined(separator: " or ")); got '\(shell)'.", topic: .completion)
      }
      options.shell = shell
    })

  static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var options = CompletionOptions()
    guard try spec.parse(arguments, into: &options) else { return .help(.completion) }
    guard !options.shell.isEmpty else {
      throw UsageError(message: "Missing the shell: bash or zsh.", topic: .completion)
    }
    return .completion(options)
  }
}
