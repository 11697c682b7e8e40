import Foundation
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

/// One row of the account matching table: a payload's instance and user, and the account it
/// belongs to (nil: none signed in).
struct MatchCase: Sendable, CustomTestStringConvertible {
    let instance: String
    let user: String
    let expected: String?

    var testDescription: String { "\(user) at \(instance) -> \(expected ?? "none")" }

    init(_ instance: String, _ user: String, _ expected: String?) {
        self.instance = instance
        self.user = user
        self.expected = expected
    }
}

@Suite("Push payload account matching")
struct PushAccountMatchTests {
    static func account(_ id: Int64, _ instance: String, _ user: String, _ state: AccountState = .active) -> AccountRecord {
        let url = try! InstanceURL(parsing: instance)
        return AccountRecord(
            id: id, instance: url, username: user, name: AccountRecord.name(username: user, instance: url),
            state: state, signedInAt: Date(timeIntervalSince1970: Double(id))
        )
    }

    static let accounts = [
        account(1, "https://gitbay.org", "alice"),
        account(2, "https://gitbay.org", "bob"),
        account(3, "https://work.example", "bob"),
        account(4, "https://work.example:8443", "carol"),
        account(5, "https://gitbay.org", "dave", .removing),
        account(6, "https://gitbay.org", "erin", .paused),
    ]

    static let cases: [MatchCase] = [
        MatchCase("https://gitbay.org", "bob", "bob@gitbay.org"),
        MatchCase("https://work.example", "bob", "bob@work.example"),
        MatchCase("https://work.example/", "bob", "bob@work.example"),
        MatchCase("https://WORK.example:443/", "bob", "bob@work.example"),
        MatchCase("https://gitbay.org", "alice", "alice@gitbay.org"),
        MatchCase("https://work.example", "alice", nil),
        MatchCase("https://work.example:8443", "carol", "carol@work.example:8443"),
        MatchCase("https://work.example", "carol", nil),
        MatchCase("https://gitbay.org", "Bob", nil),
        MatchCase("https://gitbay.org", "dave", nil),
        MatchCase("https://gitbay.org", "erin", "erin@gitbay.org"),
        MatchCase("https://other.example", "alice", nil),
    ]

    @Test("matches on instance and user together", arguments: cases)
    func match(_ testCase: MatchCase) throws {
        let payload = try PushPayload(decoding: #"{"instance":"\#(testCase.instance)","user":"\#(testCase.user)","path":"o/r/issues/1"}"#)
        #expect(payload.account(among: Self.accounts)?.name == testCase.expected)
    }
}
