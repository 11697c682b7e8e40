import FoundationEssentials
import Testing

@testable import GitbaySupport

@Suite("Timestamps")
struct TimestampTests {
    static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// Instants from year 1 to 9999, sub-millisecond parts included, from a fixed seed.
    static func instants(count: Int) -> [Date] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let span = 253_402_300_799.0 + 62_135_596_800.0
            return Date(timeIntervalSince1970: Double(state >> 11) / Double(1 << 53) * span - 62_135_596_800.0)
        }
    }

    @Test("written as Foundation's ISO 8601 style writes it, across years 1 to 9999 and leap days")
    func formatMatchesFoundation() {
        let fixed = ["2024-02-29T23:59:59.999Z", "1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "2000-03-01T00:00:00.001Z"]
        let dates = Self.instants(count: 20_000) + fixed.compactMap { try? Self.style.parse($0) }
        for date in dates {
            #expect(Timestamp.format(date) == date.formatted(Self.style), "\(date.timeIntervalSince1970)")
        }
    }

    @Test("the stored shape reads back as Foundation's parser reads it")
    func parseMatchesFoundation() throws {
        for date in Self.instants(count: 20_000) {
            let text = date.formatted(Self.style)
            let parsed = try Self.style.parse(text)
            #expect(
                Timestamp.parse(text) == parsed,
                "\(text): \(Timestamp.parse(text)?.timeIntervalSince1970 ?? 0) \(parsed.timeIntervalSince1970) \(parsed.timeIntervalSinceReferenceDate)"
            )
        }
    }

    @Test(
        "any other text is read as Foundation reads it",
        arguments: [
            "2026-09-20T14:03:07Z", "2026-09-20T14:03:07.123+02:00", "2026-02-30T00:00:00.000Z", "2026-13-01T00:00:00.000Z",
            "2026-09-20T24:00:00.000Z", "2026-09-20 14:03:07.123Z", "２026-09-20T14:03:07.123Z", "1582-10-04T12:00:00.000Z", "",
        ])
    func otherText(text: String) {
        #expect(Timestamp.parse(text) == (try? Self.style.parse(text)))
    }

    @Test(
        "an instant far past any clock is written without a trap, and a stored one reads back",
        arguments: [1.8e9 + 99_999_999_999, 1e20, -1e20, Double.infinity, -Double.infinity, Double.nan])
    func farInstants(_ secondsSince1970: Double) {
        let date = Date(timeIntervalSince1970: secondsSince1970)
        let text = Timestamp.format(date)
        #expect(!text.isEmpty)
        if secondsSince1970.magnitude < 2e11 { #expect(Timestamp.parse(text) == date, "\(text)") }
    }

    @Test("what is no date at all is nil", arguments: ["", "yesterday", "2026-09-20T14:03:07.12xZ"])
    func notADate(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }
}
