import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbaySupport

@Suite("GoDuration")
struct GoDurationTests {
    @Test(
        "Go duration strings parse",
        arguments: [
            ("12s", Duration?.some(.seconds(12))),
            ("1m30s", .some(.seconds(90))),
            ("500ms", .some(.milliseconds(500))),
            ("1h2m3.5s", .some(.milliseconds(3_723_500))),
            ("2.5s", .some(.milliseconds(2500))),
            ("0", .some(.zero)),
            ("0s", .some(.zero)),
            ("750us", .some(.microseconds(750))),
            ("750\u{00B5}s", .some(.microseconds(750))),
            ("10ns", .some(.nanoseconds(10))),
            ("9223372036854775807ns", .some(.nanoseconds(Int64.max))), ("2562047h", .some(.seconds(2_562_047 * 3600))),
            ("2562048h", nil), ("9223372036854775808ns", nil), ("99999999999999999999h", nil), ("2562047h48m", nil),
            ("", nil), ("12", nil), ("s", nil), ("-5s", nil), ("12x", nil), ("1.s5", nil), ("soon", nil),
        ])
    func parse(_ text: String, _ expected: Duration?) {
        #expect(GoDuration.parse(text) == expected)
    }

    @Test(
        "the wait is found in the write-limit message, at most an hour",
        arguments: [
            ("too many writes: 60 a minute per account; try again in 12s", Duration?.some(.seconds(12))),
            ("too many writes: 60 a minute per account; try again in 1m30s.", .some(.seconds(90))),
            ("too many writes: 60 a minute per account; try again in 500ms\nmore", .some(.milliseconds(500))),
            ("too many writes: 60 a minute per account", nil),
            ("too many writes; try again in a while", nil),
            ("too many writes: 60 a minute per account; try again in 9999999999999999999h", nil),
            ("too many writes: 60 a minute per account; try again in 59m59s", .some(.seconds(3599))),
            ("too many writes: 60 a minute per account; try again in 1h0m1s", .some(.seconds(3600))),
            ("too many writes: 60 a minute per account; try again in 2562047h47m16.854775807s", .some(.seconds(3600))),
        ])
    func wait(_ message: String, _ expected: Duration?) {
        #expect(GoDuration.parseWait(inMessage: message) == expected)
    }
}
