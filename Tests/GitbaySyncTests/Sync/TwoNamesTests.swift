import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// One server reached under two names by different accounts: the row's move between them, at
/// this install's own add, proves the names one server; from then on one account holds the
/// device, the other is shadowed, and a run writes nothing.
@Suite("One server under two names")
struct TwoNamesTests {
    static let token = "0123456789abcdef0123456789abcdef"

    /// ann at `http://127.0.0.1:P` and ben at `http://localhost:P`, both signed in before a
    /// device token is set.
    static func signedInUnderTwoNames() async throws -> (FakeGitbayServer, CLIHarness, ann: String, ben: String) {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let ann = try await cli.login(server, "ann")
        let benToken = server.mintToken(for: "ben")
        #expect(await cli.run(["login", "http://localhost:\(server.port)"], stdin: benToken).code == 0)
        return (server, cli, ann, "ben@localhost:\(server.port)")
    }

    @Test("the first run settles on one holder, and the runs after it write nothing", arguments: [1, 4])
    func settles(concurrency: Int) async throws {
        let (server, cli, ann, ben) = try await Self.signedInUnderTwoNames()
        #expect(await cli.run(["device", "set-token"], stdin: Self.token).code == 0)
        let first = await cli.run(["run", "--json", "--concurrency", String(concurrency)])
        #expect(first.code == 0, "\(first.err)")
        let outcomes = try RunOutcomeTests.accounts(first)
        #expect(outcomes[ann]?["condition"] as? String == "registered", "\(first.out)")
        #expect(outcomes[ben]?["condition"] as? String == "shadowed", "\(first.out)")
        #expect(server.devices(of: "ann").map(\.token) == [Self.token])
        #expect(server.devices(of: "ben").isEmpty)

        for _ in 0..<3 {
            server.resetRequests()
            let again = await cli.run(["run"])
            #expect(again.code == 0, "\(again.err)")
            let writes = server.requests().filter(\.isWrite).map { "\($0.user ?? "?") \($0.argv.joined(separator: " "))" }
            #expect(writes.isEmpty, "\(writes)")
        }
        // Until the move is seen from both names the two are two servers: first adds that race
        // can move the row once more (made, taken, taken back, then to the holder).
        #expect(server.moves().count <= 3, "the row moved back and forth: \(server.moves())")

        let status = await cli.run(["status"])
        #expect(status.out.contains("http://127.0.0.1:\(server.port) and http://localhost:\(server.port) are one server"), "\(status.out)")
        let accounts = await cli.run(["accounts", "--json"])
        #expect(accounts.out.contains("\"same_server_as\""), "\(accounts.out)")
        let doctor = await cli.run(["doctor", "-v"])
        #expect(doctor.out.contains("are one server"), "\(doctor.out)")
    }

    @Test("signing the same account in again under the other name is refused, and stores nothing")
    func sameAccountTwice() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let token = server.mintToken(for: "ann")
        #expect(await cli.run(["login", server.baseURL], stdin: token).code == 0)
        let again = await cli.run(["login", "http://localhost:\(server.port)"], stdin: token)
        #expect(again.code == ExitCode.dataError.rawValue, "\(again.err)")
        #expect(again.err.contains("already signed in as ann@127.0.0.1:\(server.port)"), "\(again.err)")
        #expect(try await cli.store().accounts().map(\.name) == ["ann@127.0.0.1:\(server.port)"])
    }

    @Test("after the proof, the same user under the other name with a new token is refused too")
    func sameUserOnProvenServer() async throws {
        let (server, cli, ann, _) = try await Self.signedInUnderTwoNames()
        #expect(await cli.run(["device", "set-token"], stdin: Self.token).code == 0)
        #expect(await cli.run(["run"]).code == 0)
        let again = await cli.run(["login", "http://localhost:\(server.port)"], stdin: server.mintToken(for: "ann"))
        #expect(again.code == ExitCode.dataError.rawValue, "\(again.err)")
        #expect(again.err.contains("already signed in as \(ann)"), "\(again.err)")
    }

    @Test("two servers handing out the same id at the same millisecond stay two instances")
    func coincidenceIsNoProof() async throws {
        let first = try FakeGitbayServer()
        let second = try FakeGitbayServer()
        let frozen = Date(timeIntervalSince1970: 1_800_000_000)
        first.now = frozen
        second.now = frozen
        let cli = try CLIHarness()
        let ann = try await cli.login(first, "ann")
        let ben = try await cli.login(second, "ben")
        #expect(await cli.run(["device", "set-token"], stdin: Self.token).code == 0)
        #expect(await cli.run(["run"]).code == 0)
        #expect(first.devices(of: "ann").map(\.id) == second.devices(of: "ben").map(\.id))
        // The holder's row is reaped on one server; the re-add gets the same id and time there.
        first.deleteDevice(id: try #require(first.devices(of: "ann").first?.id))
        let run = await cli.run(["run", "--json"])
        let outcomes = try RunOutcomeTests.accounts(run)
        #expect(outcomes[ann]?["condition"] as? String == "registered")
        #expect(outcomes[ben]?["condition"] as? String == "registered")
        #expect(try await cli.store().serverNames().proofs.isEmpty)
        #expect(first.devices(of: "ann").count == 1 && second.devices(of: "ben").count == 1)
        // The re-add got the reaped row's id and time: exactly what a move would show, but for
        // the other server still listing its row.
        #expect(first.devices(of: "ann").map(\.id) == second.devices(of: "ben").map(\.id))
        #expect(first.devices(of: "ann").map(\.added) == second.devices(of: "ben").map(\.added))
    }
}
