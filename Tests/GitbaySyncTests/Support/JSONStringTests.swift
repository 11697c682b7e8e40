import Foundation
import TestSupport
import Testing

@testable import GitbaySync

@Suite("JSON strings")
struct JSONStringTests {
    @Test(
        "quotes, backslashes and control characters are escaped, everything else is copied",
        arguments: [
            ("plain", #""plain""#), ("a\"b", #""a\"b""#), ("back\\slash", #""back\\slash""#), ("two\nlines\r\n", #""two\nlines\r\n""#),
            ("tab\there", #""tab\there""#), ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#), ("é ☃ 😀 /", "\"é ☃ 😀 /\""),
            ("\u{7F}", "\"\u{7F}\""), ("", #""""#),
        ])
    func escapes(text: String, json: String) {
        #expect(JSONValue.string(text).rendered() == json)
    }

    @Test("generated text reads back unchanged through Foundation's JSON parser")
    func roundTrip() throws {
        let seed = SplitMix64.seed(from: "GITBAY_JSON_SEED")
        var random = SplitMix64(seed: seed)
        let pieces = ["a", "\"", "\\", "\n", "\r\n", "\t", "\u{0}", "\u{1B}", "é", "😀", "\u{2028}", "/", " ", "\u{301}"]
        for index in 0..<2_000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let rendered = JSONValue.array([.string(text)]).rendered()
            #expect(!rendered.unicodeScalars.contains { $0.value < 0x20 }, "case \(index) of seed \(seed)")
            let decoded = try JSONSerialization.jsonObject(with: Data(rendered.utf8)) as? [String]
            #expect(decoded == [text], "case \(index) of seed \(seed): \(text.debugDescription)")
        }
    }
}
