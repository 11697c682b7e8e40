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

/// Kills the real binary (SIGKILL) at random points of runs, rotations and removals, then runs
/// once cleanly and checks that the servers, the database and the tokens came through whole.
///
/// Replay a failure with `GITBAY_SYNC_CRASH_SEED=<seed>`; `GITBAY_SYNC_CRASH_KILLS` sets how
/// many operations are killed.
@Suite("Crash consistency under SIGKILL")
struct CrashConsistencyTests {
    /// One fake instance and the users signed in on it, in sign-in order.
    struct Instance {
        let server: FakeGitbayServer
        let users: [String]
    }

    @Test("killed runs, rotations and removals leave exactly the desired rows, a sound database and every token")
    func killsAtRandomPoints() async throws {
        let seed = SplitMix64.seed(from: "GITBAY_SYNC_CRASH_SEED")
        let operations = SplitMix64.count(from: "GITBAY_SYNC_CRASH_KILLS", default: 60)
        print("crash consistency: seed \(seed), \(operations) killed operations (replay with GITBAY_SYNC_CRASH_SEED=\(seed))")
        var random = SplitMix64(seed: seed)

        let binary = try KillableBinary.locate()
        let folder = try TemporaryDirectory()
        let environment = [
            "HOME": folder.path,
            "GITBAY_SYNC_DB": folder.path + "/state/state.db",
            "XDG_CONFIG_HOME": folder.path + "/config",
            "XDG_STATE_HOME": folder.path + "/xdg-state",
            "PATH": "/usr/bin:/bin",
        ]
        let gs = { (arguments: [String], stdin: String?, kill: Duration?) throws -> KillableBinary.Exit in
            try binary.run(arguments, stdin: stdin, environment: environment, folder: folder.path, killAfter: kill)
        }

        // Three instances, each keeping one row per token as every gitbay does: four accounts
        // sharing the token, two, and two on a v1.32.0 server that returns no id.
        let instances = try [
            Instance(server: FakeGitbayServer(), users: ["a1", "a2", "a3", "a4"]),
            Instance(server: FakeGitbayServer(), users: ["b1", "b2"]),
            Instance(server: FakeGitbayServer(), users: ["c1", "c2"]),
        ]
        instances[2].server.returnsDeviceID = false
        // Dozens of runs a few seconds apart write far more than gitbay's limits allow; this
        // test is about crashes, the limits have their own.
        for instance in instances { instance.server.enforceRateLimits = false }
        var apiTokens: [String: String] = [:]
        var accountNames: [String: String] = [:]
        for instance in instances {
            for user in instance.users {
                let token = instance.server.mintToken(for: user)
                let login = try gs(["login", instance.server.baseURL], token + "\n", nil)
                try #require(login.code == 0, "login \(user): \(login.err)")
                apiTokens[user] = token
                accountNames[user] = "\(user)@127.0.0.1:\(instance.server.port)"
            }
            // Slow enough that a kill lands between a write and its record.
            instance.server.latency = .milliseconds(15)
        }

        // Every other token is a UnifiedPush-style URL: those share their first 8 bytes, so
        // only the records tell the rows of one from the rows of another.
        var generation = 0
        func newDeviceToken() -> String {
            generation += 1
            let tail = String(format: "%016llx", random.next())
            return generation % 2 == 0 ? "https://push.example.org/up/\(generation)-\(tail)" : String(format: "%08x", generation) + tail
        }
        // The tokens the device may hold now: the last one stored for sure, and every one
        // whose set-token was killed since (the kill may have landed after the commit).
        var possibleTokens = [newDeviceToken()]
        try #require(try gs(["device", "set-token", "--label", "crash-test"], possibleTokens[0], nil).code == 0)

        var removed: Set<String> = []
        var killsLanded = 0
        for step in 0..<operations {
            let killAfter = Duration.milliseconds(Int.random(in: 0...220, using: &random))
            let choice = Int.random(in: 0..<100, using: &random)
            let exit: KillableBinary.Exit
            let what: String
            if choice < 25 {
                // A rotation: the new token is stored (that write can be killed too), then a run.
                let token = newDeviceToken()
                let quick = Duration.milliseconds(Int.random(in: 0...40, using: &random))
                let set = try gs(["device", "set-token"], token, quick)
                #expect(set.crashSignal == nil, "step \(step): set-token crashed (seed \(seed))")
                #expect(set.code == 0 || set.wasKilled, "step \(step): set-token failed (seed \(seed)): \(set.err)")
                if set.wasKilled {
                    killsLanded += 1
                    possibleTokens.append(token)
                } else {
                    possibleTokens = [token]
                }
                what = "rotate"
                exit = try gs(["run"], nil, killAfter)
            } else if choice < 40, removed.count < 3 {
                let candidates = instances.flatMap(\.users).filter { !removed.contains($0) }
                let user = candidates[Int.random(in: 0..<candidates.count, using: &random)]
                removed.insert(user)
                what = "remove \(user)"
                exit = try gs(["remove-account", accountNames[user]!], nil, killAfter)
            } else {
                what = "run"
                exit = try gs(["run"], nil, killAfter)
            }
            #expect(exit.crashSignal == nil, "step \(step) (\(what)): the binary crashed (seed \(seed)): \(exit.err)")
            if exit.wasKilled { killsLanded += 1 }
        }
        print("crash consistency: \(killsLanded) kills landed mid-operation; removed \(removed.sorted())")
        #expect(killsLanded > 0, "no kill landed while the binary was running (seed \(seed))")

        // Finish the removals a kill interrupted (a removal that never started leaves the
        // account active; one killed halfway leaves it `removing`): the user asks again.
        let listed = try gs(["accounts", "--json"], nil, nil)
        try #require(listed.code == 0, "accounts: \(listed.err)")
        for user in removed.sorted() where listed.out.contains("\"\(accountNames[user]!)\"") {
            let again = try gs(["remove-account", accountNames[user]!], nil, nil)
            #expect(again.code == 0, "remove-account \(user) after the kills (seed \(seed)): \(again.err)")
        }

        let clean = try gs(["run", "--json"], nil, nil)
        #expect(clean.code == 0, "clean run after the kills (seed \(seed)): \(clean.err)")

        let store = try await StateStore.open(StateLocation(databasePath: environment["GITBAY_SYNC_DB"]!))
        #expect(try await store.integrityCheck() == ["ok"], "seed \(seed)")
        let device = try await store.device()
        let current = try #require(device.token?.exposedValue, "the device token is gone (seed \(seed))")
        #expect(possibleTokens.contains(current), "the device token is not one that was set last (seed \(seed))")

        // Every account not removed is still signed in, active, with the API token it signed in with.
        let accounts = try await store.accounts()
        let remaining = Set(instances.flatMap(\.users)).subtracting(removed)
        #expect(Set(accounts.map(\.username)) == remaining, "seed \(seed)")
        for account in accounts {
            #expect(account.state == .active, "\(account.name) is \(account.state) (seed \(seed))")
            #expect(
                try await store.apiToken(ofAccount: account.id)?.exposedValue == apiTokens[account.username],
                "\(account.name) lost its API token (seed \(seed))")
        }

        // The servers hold exactly the desired rows: one row of the current token per instance,
        // held by the earliest signed-in remaining account, none for removed accounts.
        for instance in instances {
            let rows = instance.server.devices()
            let context =
                "\(instance.users) on \(instance.server.baseURL) (seed \(seed)): \(rows.map { "#\($0.id) \($0.owner) \($0.token.prefix(8))" })"
            #expect(rows.allSatisfy { $0.token == current }, "rows of old tokens left on \(context)")
            let kept = instance.users.filter(remaining.contains)
            #expect(rows.map(\.owner) == Array(kept.prefix(1)), "not exactly one row, the holder's, on \(context)")
        }

        // And the next run has nothing left to do.
        let steady = try gs(["run", "--json"], nil, nil)
        #expect(steady.code == 0, "steady run (seed \(seed)): \(steady.err)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(steady.out.utf8)) as? [String: Any])
        let outcomes = try #require(report["accounts"] as? [[String: Any]])
        #expect(outcomes.count == remaining.count)
        #expect(outcomes.allSatisfy { $0["writes"] as? Int == 0 }, "a steady run still writes (seed \(seed)): \(steady.out)")
    }
}
