import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

@Suite("logout")
struct LogoutTests {
    @Test("logout is remove-account: it parses, signs out, and has the same help")
    func alias() async throws {
        #expect(
            try CommandLineParser.parse(["logout", "alice@gitbay.org"]).request
                == .command(RemoveAccountCommand(account: "alice@gitbay.org", force: false)))
        #expect(
            try CommandLineParser.parse(["logout", "--force", "alice@gitbay.org"]).request
                == .command(RemoveAccountCommand(account: "alice@gitbay.org", force: true)))
        #expect(try CommandLineParser.parse(["logout", "--help"]).request == .help(topic: ["logout"]))
        #expect(try CommandLineParser.parse(["help", "logout"]).request == .help(topic: ["logout"]))
        let help = HelpText.topic(["logout"])
        #expect(help.hasPrefix("Usage: gitbay-sync logout [--force] <account>\n   or: gitbay-sync remove-account [--force] <account>\n"))
        #expect(HelpText.topic(["remove-account"]).contains("   or: gitbay-sync logout [--force] <account>"))
        #expect(HelpText.program().contains("  logout "))

        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let name = try await cli.login(server, "alice")
        let result = await cli.run(["logout", name])
        #expect(result.code == 0, "\(result.err)")
        #expect(result.out.contains("Removed \(name)"))
        #expect(try await cli.store().account(named: name) == nil)
    }

    @Test("a mistyped command gets a suggestion, logout included")
    func didYouMean() throws {
        for (typed, suggested) in [("logot", "logout"), ("lgout", "logout"), ("remove-acount", "remove-account"), ("pasue", "pause")] {
            let error = try #require(throws: UsageError.self) { try CommandLineParser.parse([typed]) }
            #expect(error.message == "unknown command '\(typed)'. Did you mean '\(suggested)'?")
        }
    }

    @Test("usage errors of logout name logout")
    func usage() throws {
        let error = try #require(throws: UsageError.self) { try CommandLineParser.parse(["logout"]) }
        #expect(error.message.hasPrefix("'logout' needs <account>"))
        #expect(error.commandWords == ["logout"])
        #expect(HelpText.usage(["logout"]) == "gitbay-sync logout [--force] <account>")
    }
}
