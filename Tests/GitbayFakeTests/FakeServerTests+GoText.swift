import Foundation
import TestSupport
import Testing

@testable import GitbayFake

/// What the fake writes the way gitbay's Go code does: the token display of `device list`,
/// Go's UTF-8 repair, Go durations and the write limit's wait.
extension FakeServerTests {
    // MARK: Token display

    /// A stored token and how `device list` shows it on one release.
    struct DisplayCase: Sendable, CustomTestStringConvertible {
        let name: String
        let token: String
        var returnsDeviceID = true
        let shown: String

        var testDescription: String { name }
    }

    static let displayCases: [DisplayCase] = [
        DisplayCase(name: "a long ASCII token: 8 bytes and an ellipsis", token: "3f2a9c01aabbccdd", shown: "3f2a9c01\u{2026}"),
        DisplayCase(name: "9 bytes: cut", token: "123456789", shown: "12345678\u{2026}"),
        DisplayCase(name: "exactly 8 bytes on v1.32.1: (short token)", token: "12345678", shown: "(short token)"),
        DisplayCase(name: "exactly 8 bytes on v1.32.0: in full", token: "12345678", returnsDeviceID: false, shown: "12345678"),
        DisplayCase(name: "4 bytes on v1.32.1: (short token)", token: "abcd", shown: "(short token)"),
        DisplayCase(name: "4 bytes on v1.32.0: in full", token: "abcd", returnsDeviceID: false, shown: "abcd"),
        DisplayCase(name: "a long token on v1.32.0 is cut as well", token: "3f2a9c01aabbccdd", returnsDeviceID: false, shown: "3f2a9c01\u{2026}"),
        DisplayCase(name: "2-byte characters ending on byte 8", token: "\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}", shown: "\u{E9}\u{E9}\u{E9}\u{E9}\u{2026}"),
        DisplayCase(name: "8 bytes of 2-byte characters: (short token)", token: "\u{E9}\u{E9}\u{E9}\u{E9}", shown: "(short token)"),
        DisplayCase(name: "a 2-byte character cut after 1 byte", token: "abcdefg\u{E9}", shown: "abcdefg\u{FFFD}\u{2026}"),
        DisplayCase(
            name: "a 3-byte character cut after 2 bytes: two U+FFFD", token: "abcdef\u{20AC}x",
            shown: "abcdef\u{FFFD}\u{FFFD}\u{2026}"),
        DisplayCase(
            name: "a 4-byte character cut after 3 bytes: three U+FFFD", token: "abcde\u{1F600}x",
            shown: "abcde\u{FFFD}\u{FFFD}\u{FFFD}\u{2026}"),
        DisplayCase(name: "a 4-byte character cut after 1 byte", token: "abcdefg\u{1F600}", shown: "abcdefg\u{FFFD}\u{2026}"),
    ]

    @Test("device list shows a token as gitbay's Go server writes it", arguments: displayCases)
    func tokenDisplay(_ example: DisplayCase) throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        server.returnsDeviceID = example.returnsDeviceID
        let token = server.mintToken(for: "alice")
        server.insertDevice(owner: "alice", token: example.token, label: "")

        let response = try RawHTTP.read(server.port, token: token, Self.list)

        #expect(response.dataArray?.map { $0["token"] as? String } == [example.shown])
    }

    // MARK: Go's UTF-8 repair

    /// Bytes and the text Go's JSON encoder makes of them.
    struct UTF8Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let text: String

        var testDescription: String { name }
    }

    static let utf8Cases: [UTF8Case] = [
        UTF8Case(name: "ASCII", bytes: Array("gb_3f2a".utf8), text: "gb_3f2a"),
        UTF8Case(name: "2, 3 and 4 bytes, whole", bytes: Array("\u{E9}\u{20AC}\u{1F600}".utf8), text: "\u{E9}\u{20AC}\u{1F600}"),
        UTF8Case(name: "a real U+FFFD stays one", bytes: [0xEF, 0xBF, 0xBD], text: "\u{FFFD}"),
        UTF8Case(name: "the highest code point", bytes: [0xF4, 0x8F, 0xBF, 0xBF], text: "\u{10FFFF}"),
        UTF8Case(name: "a stray continuation byte", bytes: [0x61, 0x80, 0x62], text: "a\u{FFFD}b"),
        UTF8Case(name: "a truncated 3-byte sequence: one per byte", bytes: [0xE2, 0x82], text: "\u{FFFD}\u{FFFD}"),
        UTF8Case(name: "a broken 3-byte sequence resumes at the next byte", bytes: [0xE2, 0x82, 0x41], text: "\u{FFFD}\u{FFFD}A"),
        UTF8Case(name: "a truncated 4-byte sequence", bytes: [0xF0, 0x9F, 0x98], text: "\u{FFFD}\u{FFFD}\u{FFFD}"),
        UTF8Case(name: "overlong 2 bytes (C0)", bytes: [0xC0, 0x80], text: "\u{FFFD}\u{FFFD}"),
        UTF8Case(name: "overlong 2 bytes (C1)", bytes: [0xC1, 0xBF], text: "\u{FFFD}\u{FFFD}"),
        UTF8Case(name: "overlong 3 bytes", bytes: [0xE0, 0x80, 0xAF], text: "\u{FFFD}\u{FFFD}\u{FFFD}"),
        UTF8Case(name: "overlong 4 bytes", bytes: [0xF0, 0x8F, 0xBF, 0xBF], text: "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),
        UTF8Case(name: "a surrogate", bytes: [0xED, 0xA0, 0x80], text: "\u{FFFD}\u{FFFD}\u{FFFD}"),
        UTF8Case(name: "past U+10FFFF", bytes: [0xF4, 0x90, 0x80, 0x80], text: "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),
        UTF8Case(name: "bytes that never start a sequence", bytes: [0xF5, 0xFF, 0x41], text: "\u{FFFD}\u{FFFD}A"),
        UTF8Case(name: "a bad third byte", bytes: [0xE2, 0x82, 0xC3, 0xA9], text: "\u{FFFD}\u{FFFD}\u{E9}"),
    ]

    @Test("bytes that are not UTF-8 become one U+FFFD each, as Go writes them", arguments: utf8Cases)
    func goUTF8(_ example: UTF8Case) {
        #expect(GoText.jsonString(utf8: example.bytes) == example.text)
    }

    // MARK: Go durations

    /// A duration and what Go's `time.Duration.String()` prints for it.
    struct DurationCase: Sendable, CustomTestStringConvertible {
        let duration: Duration
        let text: String

        var testDescription: String { text }
    }

    static let durationCases: [DurationCase] = [
        DurationCase(duration: .zero, text: "0s"),
        DurationCase(duration: .seconds(1), text: "1s"),
        DurationCase(duration: .seconds(2), text: "2s"),
        DurationCase(duration: .seconds(59), text: "59s"),
        DurationCase(duration: .seconds(60), text: "1m0s"),
        DurationCase(duration: .seconds(61), text: "1m1s"),
        DurationCase(duration: .seconds(3599), text: "59m59s"),
        DurationCase(duration: .seconds(3600), text: "1h0m0s"),
        DurationCase(duration: .seconds(3661), text: "1h1m1s"),
        DurationCase(duration: .seconds(90_000), text: "25h0m0s"),
        DurationCase(duration: .milliseconds(1500), text: "1.5s"),
        DurationCase(duration: .milliseconds(61_250), text: "1m1.25s"),
        DurationCase(duration: .milliseconds(500), text: "500ms"),
        DurationCase(duration: .microseconds(1500), text: "1.5ms"),
        DurationCase(duration: .microseconds(1), text: "1\u{B5}s"),
        DurationCase(duration: .nanoseconds(1001), text: "1.001\u{B5}s"),
        DurationCase(duration: .nanoseconds(999), text: "999ns"),
        DurationCase(duration: .seconds(-2), text: "-2s"),
        DurationCase(duration: .milliseconds(-61_500), text: "-1m1.5s"),
    ]

    @Test("durations print as Go's time.Duration.String()", arguments: durationCases)
    func goDuration(_ example: DurationCase) {
        #expect(GoText.duration(example.duration) == example.text)
    }

    // MARK: The write limit's bucket

    /// Time since the bucket was emptied and the wait gitbay names.
    struct WriteWaitCase: Sendable, CustomTestStringConvertible {
        let name: String
        let after: Duration
        let wait: Duration?

        var testDescription: String { name }
    }

    static let writeWaitCases: [WriteWaitCase] = [
        WriteWaitCase(name: "empty: 1 s for the token and 1 s more", after: .zero, wait: .seconds(2)),
        WriteWaitCase(name: "0.4 tokens back: 1.6 s rounds to 2 s", after: .milliseconds(400), wait: .seconds(2)),
        WriteWaitCase(name: "half a token back: 1.5 s rounds away from zero", after: .milliseconds(500), wait: .seconds(2)),
        WriteWaitCase(name: "0.6 tokens back: 1.4 s rounds to 1 s", after: .milliseconds(600), wait: .seconds(1)),
        WriteWaitCase(name: "a whole token back: admitted", after: .seconds(1), wait: nil),
    ]

    @Test("the write limit is a token bucket: a burst of 60, one a second back", arguments: writeWaitCases)
    func writeLimitBucket(_ example: WriteWaitCase) {
        let start = ContinuousClock.now
        var limits = AccountLimits(now: start)
        let burst = (0..<60).map { _ in limits.admitWrite(at: start) }
        #expect(burst.allSatisfy { $0 == nil })
        #expect(limits.admitWrite(at: start + example.after) == example.wait)
    }
}
