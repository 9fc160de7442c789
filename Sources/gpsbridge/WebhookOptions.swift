import Automation
import FoundationEssentials

/// Where region and visit events are POSTed (`--webhook`, repeatable): the same option on
/// `run` and `serve`.
struct WebhookOptions: Equatable {
  var urls: [URL] = []

  static func options(topic: HelpTopic) -> [CommandOption<WebhookOptions>] {
    [
      CommandOption(
        names: ["--webhook"], value: "<url>",
        help:
          "POST each region and visit event (and significant change) as JSON to <url> (http or https), in order, retried with backoff; each carries an Idempotency-Key. Repeatable."
      ) { draft, value throws(UsageError) in
        guard let value, let url = URL(string: value), WebhookSender.Configuration.accepts(url) else {
          throw UsageError(
            message: "--webhook takes an http or https URL, like https://ha.example.org/api/webhook/ID; got '\(value ?? "")'.",
            topic: topic)
        }
        draft.urls.append(url)
      }.repeating()
    ]
  }
}
