import TestSupport
import Testing

@testable import GitbaySupport

/// The shortcut that leaves an IPv4 address in dotted decimal as it is agrees with the full
/// reading (`InstanceURL.ipv4`, then written in dotted decimal) on every text it is given.
@Suite("Dotted decimal hosts")
struct DottedDecimalTests {
    /// The full reading's verdict: the text is an IPv4 literal whose dotted decimal form is itself.
    static func reference(_ text: String) -> Bool {
        guard let address = InstanceURL.ipv4(Substring(text)) else { return false }
        return [24, 16, 8, 0].map { String((address >> UInt32($0)) & 0xFF) }.joined(separator: ".") == text
    }

    @Test(
        "known texts",
        arguments: [
            ("127.0.0.1", true), ("0.0.0.0", true), ("255.255.255.255", true), ("10.20.30.40", true),
            ("127.000.000.001", false), ("127.0.0.01", false), ("256.0.0.1", false), ("127.1", false), ("2130706433", false),
            ("0x7f.0.0.1", false), ("127.0.0.1.", false), (".127.0.0.1", false), ("127..0.1", false), ("1.2.3.4.5", false),
            ("", false), ("localhost", false), ("1.2.3.1000", false), ("::1", false),
        ])
    func known(_ text: String, _ expected: Bool) {
        #expect(InstanceURL.isDottedDecimal(text.utf8) == expected)
        #expect(Self.reference(text) == expected)
    }

    @Test("random texts of digits and dots")
    func random() {
        var random = SplitMix64(seed: SplitMix64.seed(from: "GITBAY_SYNC_DOTTED_SEED"))
        for _ in 0..<20_000 {
            // One to five parts of up to four digits, low ones more often, so that many are
            // addresses and many are near misses (a leading zero, 256, a part too many).
            let parts = (0..<Int.random(in: 1...5, using: &random)).map { _ in
                String(
                    (0..<Int.random(in: 0...4, using: &random)).map { _ in
                        Character(String(Int.random(in: 0...(Bool.random(using: &random) ? 9 : 2), using: &random)))
                    })
            }
            let text = parts.joined(separator: ".")
            #expect(InstanceURL.isDottedDecimal(text.utf8) == Self.reference(text), "\(text)")
        }
    }
}
