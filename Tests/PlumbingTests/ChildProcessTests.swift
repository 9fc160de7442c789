import Testing

@testable import Plumbing

/// A helper program run to its end, both its outputs read by Dispatch sources.
@Suite struct ChildProcessTests {
  @Test func itsOutputErrorAndStatusAreGiven() throws {
    let outcome = try #require(ChildProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"]))
    #expect(outcome.status == 3)
    #expect(outcome.output == "out\n")
    #expect(outcome.error == "err\n")
  }

  @Test func moreThanAPipeHoldsIsReadWhole() throws {
    let outcome = try #require(
      ChildProcess.run("/bin/sh", ["-c", "head -c 300000 /dev/zero | tr '\\\\0' x; head -c 100000 /dev/zero | tr '\\\\0' y >&2"]))
    #expect(outcome.status == 0)
    #expect(outcome.output.count == 300_000 && outcome.error.count == 100_000)
  }

  @Test func aProgramThatOutlivesItsTimeIsKilled() throws {
    let outcome = try #require(ChildProcess.run("/bin/sleep", ["30"], timeout: 0.2))
    #expect(outcome.status == nil)
  }

  @Test func aProgramThatIsNotThereIsNil() {
    #expect(ChildProcess.run("/nonexistent/chronyc", []) == nil)
  }
}
