import Foundation
import GitbayFake
import Synchronization
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

@Suite("Asking every account at once")
struct AccountFanOutTests {
    /// The most calls seen at once, per instance and in all.
    final class Overlap: Sendable {
        private let state = Mutex((now: [String: Int](), most: [String: Int](), all: 0, mostInAll: 0))

        func enter(_ instance: String) {
            state.withLock {
                $0.now[instance, default: 0] += 1
                $0.all += 1
                $0.most[instance] = max($0.most[instance] ?? 0, $0.now[instance]!)
                $0.mostInAll = max($0.mostInAll, $0.all)
            }
        }

        func leave(_ instance: String) {
            state.withLock {
                $0.now[instance, default: 0] -= 1
                $0.all -= 1
            }
        }

        var most: [String: Int] { state.withLock { $0.most } }
        var mostInAll: Int { state.withLock { $0.mostInAll } }
    }

    @Test("every instance is asked at once, within the bounds of a run, and the answers keep the accounts' order")
    func boundedPerInstance() async throws {
        let servers = [try FakeGitbayServer(), try FakeGitbayServer()]
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(StateLocation(databasePath: folder.databasePath))
        var accounts: [AccountRecord] = []
        for index in 0..<12 {
            let server = servers[index % 2]
            let user = "u\(index)"
            accounts.append(
                try await store.signIn(instance: InstanceURL(parsing: server.baseURL), username: user, apiToken: Secret(server.mintToken(for: user))))
        }
        let overlap = Overlap()
        var fanOut = AccountFanOut(store: store, tokens: APITokens(store: store, keyring: nil), configuration: CLIHarness.client, logger: .disabled)
        fanOut.bounds = Reconciler.Options(concurrency: 8, perInstance: 3, client: CLIHarness.client)
        let answers = await fanOut.run(accounts) { client in
            let instance = client.instance.description
            overlap.enter(instance)
            try await Task.sleep(for: .milliseconds(40))
            overlap.leave(instance)
            return try await client.whoami().username
        }
        #expect(answers.map(\.account.name) == accounts.map(\.name))
        #expect(answers.map { try? $0.outcome.get() } == accounts.map(\.username))
        // Six accounts on each server, at most three of them at once; both servers at once.
        #expect(overlap.most == [servers[0].baseURL: 3, servers[1].baseURL: 3])
        #expect(overlap.mostInAll == 6)
    }
}
