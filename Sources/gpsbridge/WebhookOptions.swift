import Automation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Where region and visit events are POSTed (`--webhook`, repeatable): the same option on
/// `run` and `serve`.
struct WebhookOptions: Equatable {
  var urls: [WebhookURL] = []
  /// A file of CA certificates to trust instead of the system's (`--webhook-ca`).
  var certificateAuthorities: String?

  static func options(topic: HelpTopic) -> [CommandOption<WebhookOptions>] {
    [
      CommandOption(
        names: ["--webhook"], value: "<url>",
        help:
          "POST each region and visit event (and significant change) as JSON to <url> (http or https), in order, retried with backoff; each carries an Idempotency-Key. Repeatable."
      ) { draft, value throws(UsageError) in
        guard let value, let url = WebhookURL(string: value) else {
          throw UsageError(
            message: "--webhook takes an http or https URL, like https://ha.example.org/api/webhook/ID; got '\(value ?? "")'.",
            topic: topic)
        }
        draft.urls.append(url)
      }.repeating(),
      CommandOption(
        names: ["--webhook-ca"], value: "<file>",
        help:
          "Trust the CA certificates in <file> (PEM) for https webhooks, instead of the system's: a receiver whose certificate a private CA signed."
      ) { draft, value throws(UsageError) in
        guard let value, !value.isEmpty else {
          throw UsageError(message: "--webhook-ca takes a file of CA certificates (PEM).", topic: topic)
        }
        guard access(value, R_OK) == 0 else {
          throw UsageError(message: "--webhook-ca: cannot read '\(value)': give a readable file of CA certificates (PEM).", topic: topic)
        }
        draft.certificateAuthorities = value
      }.attached(to: "--webhook"),
    ]
  }
}
