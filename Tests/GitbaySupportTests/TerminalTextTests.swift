import TestSupport
import Testing

@testable import GitbaySupport

@Suite("TerminalText")
struct TerminalTextTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let shown: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "plain text is unchanged", text: "laptop [gbs-5kbj9h]", shown: "laptop [gbs-5kbj9h]"),
        Case(name: "other scripts and emoji are unchanged", text: "Jürgen’s 電話 📱", shown: "Jürgen’s 電話 📱"),
        Case(name: "a title sequence and a screen clear", text: "a\u{1B}]0;title\u{07}\u{1B}[2Jb", shown: #"a\u{1B}]0;title\u{07}\u{1B}[2Jb"#),
        Case(name: "tab, line feed, carriage return", text: "a\tb\nc\rd", shown: #"a\tb\nc\rd"#),
        Case(name: "CR LF, one Character in Swift, is two escapes", text: "a\r\nb", shown: #"a\r\nb"#),
        Case(name: "NUL and the last C0", text: "\u{0}\u{1F}", shown: #"\u{00}\u{1F}"#),
        Case(name: "DEL", text: "a\u{7F}", shown: #"a\u{7F}"#),
        Case(name: "C1: NEL and CSI", text: "\u{85}\u{9B}2J", shown: #"\u{85}\u{9B}2J"#),
        Case(name: "bidi override and its end", text: "abc\u{202E}gpj.exe\u{202C}", shown: #"abc\u{202E}gpj.exe\u{202C}"#),
        Case(name: "bidi isolates", text: "\u{2066}x\u{2067}y\u{2068}z\u{2069}", shown: #"\u{2066}x\u{2067}y\u{2068}z\u{2069}"#),
        Case(name: "line and paragraph separators", text: "a\u{2028}b\u{2029}", shown: #"a\u{2028}b\u{2029}"#),
        Case(name: "a backslash is doubled, so an escape reads back", text: #"C:\n"#, shown: #"C:\\n"#),
        Case(name: "the character after C1 is left alone", text: "\u{A0}©", shown: "\u{A0}©"),
    ]

    @Test("escapes what a terminal would act on, and nothing else", arguments: cases)
    func escaping(_ example: Case) {
        #expect(TerminalText.escaped(example.text) == example.shown)
        #expect("[\(escaped: example.text)]" == "[\(example.shown)]")
    }

    @Test("the result holds no scalar that needs escaping but the backslashes it writes", arguments: cases)
    func result(_ example: Case) {
        let shown = TerminalText.escaped(example.text)
        #expect(!shown.unicodeScalars.contains { $0 != "\\" && TerminalText.needsEscaping($0) })
    }
}
