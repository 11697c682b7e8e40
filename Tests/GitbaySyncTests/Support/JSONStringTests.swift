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

    @Test("numbers keep their sign and every digit, and a document longer than the first buffer is whole")
    func numbersAndLength() throws {
        let numbers = [0, 7, -7, 10, -10, 99, 1_000_000, Int.max, Int.min]
        #expect(JSONValue.array(numbers.map(JSONValue.int)).rendered() == "[" + numbers.map(String.init).joined(separator: ",") + "]")
        let members = (0..<600).map { index in ("k\(index)", JSONValue.object([("n", .int(-index)), ("s", .string("v\"\(index)")), ("z", .null)])) }
        let rendered = JSONValue.object(members + [("end", .bool(true))]).rendered()
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(rendered.utf8)) as? [String: Any])
        #expect(decoded.count == 601)
        #expect((decoded["k599"] as? [String: Any])?["s"] as? String == "v\"599")
        #expect((decoded["k599"] as? [String: Any])?["n"] as? Int == -599)
        #expect(decoded["end"] as? Bool == true)
    }
}
