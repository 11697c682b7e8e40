import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

@Suite("Interval parser")
struct IntervalParserTests {
    struct Valid: Sendable, CustomStringConvertible {
        let text: String
        let seconds: Int64
        var description: String { "\(text) = \(seconds) s" }
    }

    static let valid: [Valid] = [
        .init(text: "10s", seconds: 10),
        .init(text: "30s", seconds: 30),
        .init(text: "15m", seconds: 900),
        .init(text: "1h", seconds: 3600),
        .init(text: "1h30m", seconds: 5400),
        .init(text: "1d", seconds: 86400),
        .init(text: "1d2h3m4s", seconds: 93784),
        .init(text: "90s", seconds: 90),
        .init(text: "7d", seconds: 604_800),
        .init(text: "168h", seconds: 604_800),
    ]

    @Test("accepts whole numbers with units, largest first, from 10s to 7d", arguments: valid)
    func accepts(_ example: Valid) throws {
        #expect(try IntervalParser.parse(example.text) == .seconds(example.seconds))
    }

    struct Invalid: Sendable, CustomStringConvertible {
        let text: String
        let failure: IntervalParser.Failure
        var description: String { "'\(text)'" }
    }

    static let invalid: [Invalid] = [
        .init(text: "0", failure: .malformed("0")),
        .init(text: "0s", failure: .tooShort("0s")),
        .init(text: "9s", failure: .tooShort("9s")),
        .init(text: "15", failure: .malformed("15")),
        .init(text: "-5m", failure: .malformed("-5m")),
        .init(text: "", failure: .malformed("")),
        .init(text: "m", failure: .malformed("m")),
        .init(text: "1.5h", failure: .malformed("1.5h")),
        .init(text: "15 m", failure: .malformed("15 m")),
        .init(text: "30m1h", failure: .malformed("30m1h")),
        .init(text: "1h1h", failure: .malformed("1h1h")),
        .init(text: "15M", failure: .malformed("15M")),
        .init(text: "1w", failure: .malformed("1w")),
        .init(text: "7d1s", failure: .tooLong("7d1s")),
        .init(text: "8d", failure: .tooLong("8d")),
        .init(text: "99999999999999999999d", failure: .tooLong("99999999999999999999d")),
        .init(text: "١٠m", failure: .malformed("١٠m")),
    ]

    @Test("refuses zero, negative, unit-less, misordered and absurd periods", arguments: invalid)
    func refuses(_ example: Invalid) {
        let error = #expect(throws: IntervalParser.Failure.self) { try IntervalParser.parse(example.text) }
        #expect(error == example.failure)
    }

    @Test("formats seconds in the shortest spelling the parser reads back", arguments: [10, 90, 900, 5400, 93784, 604_800] as [Int64])
    func formatRoundTrips(_ seconds: Int64) throws {
        let text = IntervalParser.format(.seconds(seconds))
        #expect(try IntervalParser.parse(text) == .seconds(seconds))
    }

    @Test(
        "the command line rejects a bad --every with exit 64 and the parser's reason",
        arguments: [
            ["run", "--every", "0"], ["run", "--every", "-5m"], ["run", "--every", "15"], ["run", "--every=9s"],
            ["run", "--every", "30d"], ["service", "install", "--every", "0s"], ["service", "show", "--every", "1x"],
        ])
    func commandLineRejects(_ arguments: [String]) async throws {
        let cli = try CLIHarness()
        let result = await cli.run(arguments)
        #expect(result.code == 64)
        #expect(result.err.contains("invalid value for --every"))
        #expect(result.err.contains("Usage: gitbay-sync \(arguments[0])"))
    }
}
