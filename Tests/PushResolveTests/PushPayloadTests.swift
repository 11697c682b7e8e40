import Foundation
import TestSupport
import Testing

@testable import GitbaySupport
@testable import PushResolve

/// One row of the payload decoding table.
struct PayloadCase: Sendable, CustomTestStringConvertible {
    enum Expected: Sendable, Equatable {
        case payload(instance: String, user: String, path: String, badge: Int)
        case error(PayloadError)
    }

    let name: String
    let text: String
    let expected: Expected

    var testDescription: String { name }

    init(_ name: String, _ text: String, _ expected: Expected) {
        self.name = name
        self.text = text
        self.expected = expected
    }

    /// The payload PROTOCOL.md shows, each field replaced by the JSON text given (nil leaves it out).
    static func payload(
        instance: String? = "\"https://gitbay.org\"", user: String? = "\"bob\"", path: String? = "\"owner/repo/issues/1\"",
        aps: String? = #"{"alert":{"title":"owner/repo","body":"alice opened issue #1"},"sound":"default","badge":3,"thread-id":"owner/repo"}"#
    ) -> String {
        var members: [String] = []
        if let aps { members.append("\"aps\":\(aps)") }
        if let path { members.append("\"path\":\(path)") }
        if let instance { members.append("\"instance\":\(instance)") }
        if let user { members.append("\"user\":\(user)") }
        return "{" + members.joined(separator: ",") + "}"
    }
}

@Suite("Push payload decoding")
struct PushPayloadTests {
    static let cases: [PayloadCase] = [
        PayloadCase(
            "the payload PROTOCOL.md shows", PayloadCase.payload(),
            .payload(instance: "https://gitbay.org", user: "bob", path: "owner/repo/issues/1", badge: 3)),
        PayloadCase(
            "no aps: badge 0", PayloadCase.payload(aps: nil),
            .payload(instance: "https://gitbay.org", user: "bob", path: "owner/repo/issues/1", badge: 0)),
        PayloadCase(
            "aps without badge: badge 0", PayloadCase.payload(aps: #"{"sound":"default"}"#),
            .payload(instance: "https://gitbay.org", user: "bob", path: "owner/repo/issues/1", badge: 0)),
        PayloadCase(
            "badge 0", PayloadCase.payload(aps: #"{"badge":0}"#),
            .payload(instance: "https://gitbay.org", user: "bob", path: "owner/repo/issues/1", badge: 0)),
        PayloadCase(
            "a badge that is not a number is ignored", PayloadCase.payload(aps: #"{"badge":"3"}"#),
            .payload(instance: "https://gitbay.org", user: "bob", path: "owner/repo/issues/1", badge: 0)),
        PayloadCase(
            "an aps that is not an object is ignored", PayloadCase.payload(aps: "\"x\""),
            .payload(instance: "https://gitbay.org", user: "bob", path: "owner/repo/issues/1", badge: 0)),
        PayloadCase(
            "unknown fields are ignored", #"{"instance":"https://gitbay.org","user":"bob","path":"o/r/mrs/2","later":{"a":[1]}}"#,
            .payload(instance: "https://gitbay.org", user: "bob", path: "o/r/mrs/2", badge: 0)),
        PayloadCase(
            "an instance with a trailing slash is normalised", PayloadCase.payload(instance: "\"https://gitbay.org/\""),
            .payload(instance: "https://gitbay.org", user: "bob", path: "owner/repo/issues/1", badge: 3)),
        PayloadCase(
            "an instance in capitals with its default port is normalised", PayloadCase.payload(instance: "\"HTTPS://GitBay.ORG:443\""),
            .payload(instance: "https://gitbay.org", user: "bob", path: "owner/repo/issues/1", badge: 3)),
        PayloadCase(
            "a path the app cannot route still decodes", PayloadCase.payload(path: "\"owner/repo\""),
            .payload(instance: "https://gitbay.org", user: "bob", path: "owner/repo", badge: 3)),
        PayloadCase(
            "an empty path still decodes", PayloadCase.payload(path: "\"\""),
            .payload(instance: "https://gitbay.org", user: "bob", path: "", badge: 3)),
        PayloadCase("nothing at all", "", .error(.empty)),
        PayloadCase("only whitespace", " \n\t", .error(.empty)),
        PayloadCase("not JSON", "owner/repo/issues/1", .error(.notJSON)),
        PayloadCase("cut short", #"{"instance":"https://gitbay.org","us"#, .error(.notJSON)),
        PayloadCase("an array", "[1,2]", .error(.notAnObject)),
        PayloadCase("a string", "\"https://gitbay.org\"", .error(.notAnObject)),
        PayloadCase("no instance", PayloadCase.payload(instance: nil), .error(.missing("instance"))),
        PayloadCase("no user", PayloadCase.payload(user: nil), .error(.missing("user"))),
        PayloadCase("no path", PayloadCase.payload(path: nil), .error(.missing("path"))),
        PayloadCase("a null user", PayloadCase.payload(user: "null"), .error(.missing("user"))),
        PayloadCase("an empty user", PayloadCase.payload(user: "\"\""), .error(.missing("user"))),
        PayloadCase("an empty instance", PayloadCase.payload(instance: "\"\""), .error(.missing("instance"))),
        PayloadCase("an instance that is a number", PayloadCase.payload(instance: "3"), .error(.wrongType(field: "instance", expected: "a string"))),
        PayloadCase("a user that is an object", PayloadCase.payload(user: "{}"), .error(.wrongType(field: "user", expected: "a string"))),
        PayloadCase(
            "a path that is an array", PayloadCase.payload(path: #"["owner","repo"]"#), .error(.wrongType(field: "path", expected: "a string"))),
        PayloadCase("an instance without a scheme", PayloadCase.payload(instance: "\"gitbay.org\""), .error(.badInstance(.malformed("gitbay.org")))),
        PayloadCase("an instance that is words", PayloadCase.payload(instance: "\"not a url\""), .error(.badInstance(.malformed("not a url")))),
        PayloadCase(
            "an instance that is not http(s)", PayloadCase.payload(instance: "\"ftp://gitbay.org\""),
            .error(.badInstance(.unsupportedScheme("ftp://gitbay.org")))),
        PayloadCase(
            "an instance with a path", PayloadCase.payload(instance: "\"https://gitbay.org/owner\""),
            .error(.badInstance(.hasPathOrQuery("https://gitbay.org/owner")))),
        PayloadCase(
            "plain http to a remote instance", PayloadCase.payload(instance: "\"http://gitbay.org\""),
            .error(.badInstance(.plainHTTPToRemoteHost("http://gitbay.org")))),
    ]

    @Test("decodes or rejects a payload", arguments: cases)
    func decode(_ testCase: PayloadCase) {
        let got: PayloadCase.Expected
        do {
            let payload = try PushPayload(decoding: testCase.text)
            got = .payload(instance: payload.instance.description, user: payload.user, path: payload.path, badge: payload.badge)
        } catch {
            got = .error(error)
        }
        #expect(got == testCase.expected)
    }

    @Test("every rejection says what is wrong with the payload")
    func messages() {
        for testCase in Self.cases {
            guard case .error(let error) = testCase.expected else { continue }
            #expect(error.description.contains("payload"), "\(testCase.name): \(error)")
        }
    }
}
