import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

@Suite("Naming an account on the command line")
struct AccountNameTests {
    /// A name typed, and the account it finds or the error it gets.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let finds: String?
        var error: String? = nil
        var testDescription: String { name }
    }

    static let accounts = [
        ("carol", "https://gitbay.org"), ("dave", "https://gitbay.org"), ("dave", "http://127.0.0.1:44277"), ("erin", "https://Git.Example"),
    ]

    static func records() throws -> [AccountRecord] {
        try accounts.enumerated().map { index, account in
            let instance = try InstanceURL(parsing: account.1)
            return AccountRecord(
                id: Int64(index + 1), instance: instance, username: account.0,
                name: AccountRecord.name(username: account.0, instance: instance), state: .active, signedInAt: Date(timeIntervalSince1970: 0))
        }
    }

    static let signedIn = "signed in: carol@gitbay.org, dave@gitbay.org, dave@127.0.0.1:44277, erin@git.example"

    @Test(
        "a name finds the account it names, a user name the one account that has it",
        arguments: [
            Case(name: "carol@gitbay.org", finds: "carol@gitbay.org"), Case(name: "dave@127.0.0.1:44277", finds: "dave@127.0.0.1:44277"),
            Case(name: "erin@GIT.example", finds: "erin@git.example"), Case(name: "carol", finds: "carol@gitbay.org"),
            Case(name: "erin", finds: "erin@git.example"),
            Case(name: "dave", finds: nil, error: "'dave' names 2 accounts: dave@gitbay.org, dave@127.0.0.1:44277; give one of them in full"),
            // A user name is taken as given, in its own case.
            Case(name: "Carol", finds: nil, error: "no account 'Carol' (\(signedIn))."),
            Case(name: "carol@gitbay.com", finds: nil, error: "no account 'carol@gitbay.com' (\(signedIn)). Did you mean 'carol@gitbay.org'?"),
            Case(name: "frank", finds: nil, error: "no account 'frank' (\(signedIn))."),
        ])
    func found(_ test: Case) throws {
        let records = try Self.records()
        if let finds = test.finds {
            #expect(try AccountName.find(test.name, among: records).name == finds)
        } else {
            let error = try #require(throws: CommandFailure.self) { try AccountName.find(test.name, among: records) }
            #expect(error.message == test.error)
            #expect(error.exitCode == .noSuchAccount)
        }
    }

    @Test("with no account signed in, the error says how to sign in")
    func noAccounts() throws {
        let error = try #require(throws: CommandFailure.self) { try AccountName.find("carol", among: []) }
        #expect(error.message == "no account 'carol' (no account is signed in; sign in with `gitbay-sync login <instance-url>`).")
    }

    @Test("a user name that only one account has names that account")
    func uniqueUserName() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let carol = try await cli.login(server, "carol")
        let dave = try await cli.login(server, "dave")
        let result = await cli.run(["pause", "carol"])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.contains("Paused \(carol)"), "\(result.out)")
        let store = try await cli.store()
        #expect(try await store.account(named: carol)?.state == .paused)
        #expect(try await store.account(named: dave)?.state == .active)
        let resumed = await cli.run(["resume", "carol", "--json"])
        #expect(resumed.code == 0, "\(resumed.err)")
        #expect(try await store.account(named: carol)?.state == .active)
    }

    @Test("a user name that several accounts have is refused, naming them, and nothing is sent or changed (exit 67)")
    func ambiguousUserName() async throws {
        let first = try FakeGitbayServer()
        let second = try FakeGitbayServer()
        let cli = try CLIHarness()
        let one = try await cli.login(first, "carol")
        let other = try await cli.login(second, "carol")
        first.resetRequests()
        second.resetRequests()
        for command in [["pause"], ["remove-account"], ["devices"], ["push", "off"]] {
            let result = await cli.run(command + ["carol"])
            #expect(result.code == ExitCode.noSuchAccount.rawValue, "\(command)")
            #expect(result.err == "Error: 'carol' names 2 accounts: \(one), \(other); give one of them in full", "\(command)")
        }
        #expect(first.requests().isEmpty && second.requests().isEmpty)
        let store = try await cli.store()
        #expect(try await store.accounts().map(\.state) == [.active, .active])
    }

    @Test("a user name no account has is no account, with the signed-in ones named (exit 67)")
    func unknownUserName() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let carol = try await cli.login(server, "carol")
        let result = await cli.run(["pause", "erin"])
        #expect(result.code == ExitCode.noSuchAccount.rawValue)
        #expect(result.err == "Error: no account 'erin' (signed in: \(carol)).")
    }
}
