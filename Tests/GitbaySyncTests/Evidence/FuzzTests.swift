import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

/// Generated and mutated input for every parser that reads what a user, a server or a push
/// hands over: never a crash, always a value or a clear error.
///
/// Each test prints its seed first, so a crash (which ends the test process) can be replayed
/// with `GITBAY_SYNC_FUZZ_SEED=<seed>`; `GITBAY_SYNC_FUZZ_ITERATIONS` runs more cases.
@Suite("Fuzzing the parsers")
struct FuzzTests {
    static func start(_ target: String, default count: Int) -> (FuzzInput, Int, UInt64) {
        FuzzInput.start(target, default: count)
    }

    /// Command lines the parser must accept.
    static let validCommandLines: [[String]] = [
        ["login", "https://gitbay.org"], ["accounts"], ["remove-account", "alice@gitbay.org", "--force"],
        ["pause", "alice@gitbay.org"], ["resume", "alice@gitbay.org"], ["prefer", "alice@gitbay.org"],
        ["device", "set-token", "--label", "laptop"], ["device", "show"], ["device", "clear"],
        ["run"], ["run", "--every", "15m"], ["run", "--concurrency", "8"], ["status"], ["doctor"], ["devices"],
        ["devices", "alice@gitbay.org"], ["devices", "remove", "alice@gitbay.org", "12", "--yes"],
        ["push", "on", "alice@gitbay.org"], ["push", "off", "alice@gitbay.org"], ["push", "show"], ["resolve"],
        ["service", "install", "--every", "1h"], ["service", "uninstall"], ["service", "show"],
        ["--json", "status"], ["status", "--db", "/tmp/x.db"], ["-vv", "run"], ["--version"], ["--help"], ["help", "run"],
    ]

    static let argumentWords = [
        "login", "accounts", "remove-account", "pause", "resume", "prefer", "device", "set-token", "show", "clear",
        "run", "status", "doctor", "devices", "remove", "push", "on", "off", "resolve", "service", "install",
        "uninstall", "help", "--json", "--verbose", "--help", "--version", "--db", "--every", "--concurrency", "--force",
        "--label", "--yes", "-v", "-vv", "-h", "-x", "-", "--", "--=", "--json=1", "--db=", "--every=", "", " ", "0",
        "-1", "65", "99999999999999999999", "10s", "1h30m", "7d", "8d", "1s", "s", "alice@gitbay.org", "@", "x@",
        "https://gitbay.org", "http://example.com", "\u{1F600}", "a\u{0}b", "--concurrency=0", "--label=[x]",
    ]

    @Test("the argument parser returns an invocation or a usage error for any argv")
    func commandLine() throws {
        var (input, iterations, seed) = Self.start("CommandLineParser.parse", default: 3000)
        for line in Self.validCommandLines {
            #expect(throws: Never.self, "\(line)") { try CommandLineParser.parse(line) }
        }
        var accepted = 0
        for index in 0..<iterations {
            var argv: [String]
            if input.chance(50) {
                // A valid line, edited: words dropped, duplicated, swapped or inserted.
                argv = input.pick(Self.validCommandLines)
                for _ in 0..<input.int(1...3) {
                    let at = input.int(0...argv.count)
                    switch input.int(0...3) {
                    case 0 where !argv.isEmpty: argv.remove(at: min(at, argv.count - 1))
                    case 1 where !argv.isEmpty: argv.insert(argv[min(at, argv.count - 1)], at: at)
                    case 2 where argv.count > 1: argv.swapAt(0, argv.count - 1)
                    default: argv.insert(input.pick(Self.argumentWords), at: at)
                    }
                }
            } else {
                argv = (0..<input.int(0...6)).map { _ in
                    input.chance(85) ? input.pick(Self.argumentWords) : String(decoding: input.mutate(input.pick(Self.argumentWords)), as: UTF8.self)
                }
            }
            let first: Result<Invocation, UsageError> = Result { () throws(UsageError) in try CommandLineParser.parse(argv) }
            let second: Result<Invocation, UsageError> = Result { () throws(UsageError) in try CommandLineParser.parse(argv) }
            #expect(first == second, "case \(index) of seed \(seed): \(argv) parses two ways")
            switch first {
            case .success: accepted += 1
            case .failure(let error):
                #expect(!error.message.isEmpty, "case \(index) of seed \(seed): \(argv) fails without a message")
            }
        }
        // The generator must reach both sides, or it tests nothing.
        #expect(accepted > 0 && accepted < iterations, "accepted \(accepted) of \(iterations)")
    }

    @Test("the duration parsers return a duration in range or a clear error for any text")
    func durations() {
        var (input, iterations, seed) = Self.start("IntervalParser and GoDuration", default: 4000)
        let alphabet = Array("0123456789smhd") + ["0", "1", "9", " ", ".", "-", "µ", "n", "u", "x", "\u{0663}"]
        for index in 0..<iterations {
            let text =
                input.chance(70)
                ? input.text(from: alphabet, length: 0...24)
                : String(
                    decoding: input.mutate(
                        input.pick(["30s", "15m", "1h30m", "2d", "1h2m3.5s", "500ms", "9223372036854775807s"]),
                        fragments: ["9", "99999999999", "h", "m", "s", "ms", ".", "d"]), as: UTF8.self)
            do throws(IntervalParser.Failure) {
                let period = try IntervalParser.parse(text)
                #expect(period >= IntervalParser.minimum && period <= IntervalParser.maximum, "case \(index) of seed \(seed): '\(text)'")
                // What `format` prints reads back as the same period.
                #expect(try IntervalParser.parse(IntervalParser.format(period)) == period, "case \(index) of seed \(seed): '\(text)'")
            } catch {
                #expect(!error.description.isEmpty)
            }
            // Go durations come from server messages; the number may be anything a server says.
            if let wait = GoDuration.parse(text) {
                #expect(wait >= .zero, "case \(index) of seed \(seed): '\(text)'")
            }
            if let wait = GoDuration.parseWait(inMessage: "too many writes: 60 a minute per account; try again in \(text)") {
                #expect(wait >= .zero, "case \(index) of seed \(seed): '\(text)'")
            }
        }
    }

    static let validPayload =
        #"{"aps":{"alert":{"title":"owner/repo","body":"alice opened issue #1"},"sound":"default","badge":3,"thread-id":"owner/repo"},"path":"owner/repo/issues/1","instance":"https://gitbay.org","user":"bob"}"#

    @Test("the push payload decodes to an account and a destination or a clear error for any text")
    func pushPayloads() throws {
        var (input, iterations, seed) = Self.start("PushPayload", default: 3000)
        var decoded = 0
        for index in 0..<iterations {
            let text =
                input.chance(80)
                ? String(decoding: input.mutate(Self.validPayload), as: UTF8.self)
                : input.jsonValue()
            do throws(PayloadError) {
                let payload = try PushPayload(decoding: text)
                decoded += 1
                #expect(!payload.user.trimmingWhitespace().isEmpty, "case \(index) of seed \(seed): \(text)")
                let reparsed = try? InstanceURL(parsing: payload.instance.description)
                #expect(reparsed == payload.instance, "case \(index) of seed \(seed): \(text)")
                _ = payload.destination
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
        #expect(try PushPayload(decoding: Self.validPayload).user == "bob")
        print("fuzz PushPayload: \(decoded) of \(iterations) decoded")
    }
}
