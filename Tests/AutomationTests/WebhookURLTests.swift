import Automation
import Foundation
import Testing

/// `--webhook`'s URL, read without Foundation: http or https with a host, and a port when one
/// is named, as Foundation's `URL` reads the same text; anything else refused.
@Suite struct WebhookURLTests {
  @Test(arguments: [
    "https://ha.example.org/api/webhook/SECRET", "http://127.0.0.1:8123/api/webhook/x?y=1#z", "HTTPS://Example.org",
    "http://[::1]:8080/hook", "http://user:pass@host.example:81/p", "https://host", "http://host:65535/",
  ])
  func aWebURLIsTakenApartAsFoundationDoes(_ text: String) throws {
    let ours = try #require(WebhookURL(string: text))
    let theirs = try #require(URL(string: text))
    #expect(ours.absoluteString == text)
    #expect(ours.scheme == theirs.scheme?.lowercased())
    #expect(ours.port == theirs.port)
    // Foundation gives an IPv6 host without its brackets.
    #expect(ours.host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) == theirs.host)
    #expect(!ours.redacted.contains("SECRET") && !ours.redacted.contains("pass"))
  }

  @Test(arguments: [
    "", "ha.example.org/api", "ftp://host/x", "mailto:me@example.org", "https://", "https:///path", "http://host:0/",
    "http://host:65536/", "http://host:80a/", "http://host:/", "http://[::1/", "http://[::1]x/", "https://host/a b",
    "https://host/\u{7F}", "file:///etc/passwd", "https//host", "http://::1/", "http://host:+80/", "http://host:-1/",
  ])
  func anythingElseIsRefused(_ text: String) {
    #expect(WebhookURL(string: text) == nil, "\(text.debugDescription)")
  }

  @Test func messagesShowTheHostNeverThePath() throws {
    let url = try #require(WebhookURL(string: "https://ha.example.org:8123/api/webhook/SECRET"))
    #expect(url.redacted == "https://ha.example.org:8123/…")
  }
}
