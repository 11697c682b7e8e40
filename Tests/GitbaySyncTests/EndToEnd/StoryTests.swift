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

@Suite("The built binary, end to end")
struct StoryTests {
    static let firstToken = "3f2a9c01d4e5f60718293a4b5c6d7e8f"
    static let secondToken = "77aa88bb99cc00dd11ee22ff33445566"

    @Test("two instances, three accounts: register, stay steady, rotate, remove through an outage")
    func wholeStory() async throws {
        let folder = try TemporaryDirectory()
        let binary = try BuiltBinary(executable: try BuiltBinary.located(), folder: folder)
        let a = try FakeGitbayServer()
        let b = try FakeGitbayServer()
        let alice = "alice@127.0.0.1:\(a.port)", bob = "bob@127.0.0.1:\(a.port)", carol = "carol@127.0.0.1:\(b.port)"

        // Sign in: two accounts on A, one on B. No device token yet, so nothing is written.
        for (server, user, name) in [(a, "alice", alice), (a, "bob", bob), (b, "carol", carol)] {
            let login = try await binary.run(["login", server.baseURL], stdin: server.mintToken(for: user) + "\n")
            #expect(login.code == 0, "\(login.err)")
            #expect(login.out.hasPrefix("Signed in as \(name)."))
            #expect(login.err.isEmpty)
        }
        #expect(a.devices().isEmpty && b.devices().isEmpty)
        let setToken = try await binary.run(["device", "set-token", "--label", "e2e-laptop"], stdin: Self.firstToken)
        #expect(setToken.code == 0, "\(setToken.err)")
        #expect(setToken.out.contains("Device token set (3f2a9c01…)"))

        // First run: alice (signed in first) holds the token on A, bob is shadowed; carol on B.
        let first = try await binary.run(["run"])
        #expect(first.code == 0, "\(first.err)")
        #expect(first.err.isEmpty)
        let firstLines = first.out.split(separator: "\n").map(String.init)
        #expect(firstLines.count == 3, "\(first.out)")
        #expect(firstLines.contains { $0.hasPrefix(alice) && $0.contains("added") })
        #expect(firstLines.contains { $0.hasPrefix(bob) && $0.contains("shadowed by \(alice)") })
        #expect(firstLines.contains { $0.hasPrefix(carol) && $0.contains("added") })
        let aRows = a.devices(), bRows = b.devices()
        #expect(aRows.map(\.owner) == ["alice"])
        #expect(bRows.map(\.owner) == ["carol"])
        #expect((aRows + bRows).allSatisfy { $0.token == Self.firstToken && $0.label.hasPrefix("e2e-laptop [gbs-") })

        // Steady: one request per account, no writes.
        a.resetRequests()
        b.resetRequests()
        let steady = try await binary.run(["run", "--json"])
        #expect(steady.code == 0, "\(steady.err)")
        let steadyJSON = try steady.json()
        #expect(steadyJSON["ok"] as? Bool == true)
        let outcomes = try #require(steadyJSON["accounts"] as? [[String: Any]])
        #expect(Set(outcomes.map { $0["account"] as? String }) == [alice, bob, carol])
        #expect(outcomes.allSatisfy { $0["requests"] as? Int == 1 && $0["writes"] as? Int == 0 })
        #expect(outcomes.first { $0["account"] as? String == bob }?["condition"] as? String == "shadowed")
        #expect(a.requests().count == 2 && b.requests().count == 1)
        #expect(!(a.requests() + b.requests()).contains { $0.isWrite })
        #expect(Set(a.requests().compactMap(\.user)) == ["alice", "bob"])
        #expect(a.devices() == aRows && b.devices() == bRows)

        // Rotation: the new token is added before the old row goes; then one row per holder.
        a.resetRequests()
        b.resetRequests()
        let rotate = try await binary.run(["device", "set-token"], stdin: Self.secondToken + "\n")
        #expect(rotate.code == 0 && rotate.out.contains("Device token rotated (77aa88bb…)"), "\(rotate.out)\(rotate.err)")
        let rotated = try await binary.run(["run"])
        #expect(rotated.code == 0, "\(rotated.err)")
        for server in [a, b] {
            let writes = server.requests().filter(\.isWrite).map { $0.argv.filter { $0 != "--json" } }
            let firstAdd = try #require(writes.firstIndex { $0.starts(with: ["notifications", "device", "add"]) }, "\(writes)")
            let firstRemove = try #require(writes.firstIndex { $0.starts(with: ["notifications", "device", "remove"]) }, "\(writes)")
            #expect(firstAdd < firstRemove, "\(writes)")
        }
        #expect(a.devices().map(\.owner) == ["alice"])
        #expect(b.devices().map(\.owner) == ["carol"])
        #expect((a.devices() + b.devices()).allSatisfy { $0.token == Self.secondToken })
        #expect(!(a.devices() + b.devices()).contains { $0.token == Self.firstToken })

        // carol signs out while B is down: kept as `removing` with its token, exit 69.
        b.isDown = true
        let removal = try await binary.run(["remove-account", carol])
        #expect(removal.code == ExitCode.unavailable.rawValue, "\(removal.err)")
        #expect(removal.out.isEmpty)
        #expect(removal.err.hasPrefix("Error: \(carol) is not removed yet: "))
        #expect(removal.err.contains("stays `removing` with its token"))
        #expect(removal.err.contains("--force"))
        let kept = try await binary.run(["accounts", "--json"])
        let keptAccounts = try #require(try kept.json()["accounts"] as? [[String: Any]])
        let keptCarol = try #require(keptAccounts.first { $0["account"] as? String == carol })
        #expect(keptCarol["state"] as? String == "removing")
        do {
            let store = try await StateStore.open(StateLocation(databasePath: binary.databasePath))
            let record = try #require(try await store.account(named: carol))
            #expect(try await store.apiToken(ofAccount: record.id) != nil)
        }
        #expect(b.devices().map(\.owner) == ["carol"])

        // B is back, but carol waits out the failure's backoff: a run leaves her alone.
        b.isDown = false
        let waiting = try await binary.run(["run"])
        #expect(waiting.code == 0, "\(waiting.err)")
        #expect(waiting.out.contains("skipped (error): waiting out a backoff (next attempt in "), "\(waiting.out)")
        #expect(b.devices().map(\.owner) == ["carol"])
        // `run --now` does not wait: it deregisters carol, then deletes her.
        let finish = try await binary.run(["run", "--now"])
        #expect(finish.code == 0, "\(finish.err)")
        #expect(b.devices().isEmpty)
        #expect(a.devices().map(\.owner) == ["alice"])
        let after = try await binary.run(["accounts", "--json"])
        let remaining = try #require(try after.json()["accounts"] as? [[String: Any]])
        #expect(remaining.map { $0["account"] as? String } == [alice, bob])
        #expect(remaining.allSatisfy { Set($0.keys) == Self.accountKeys })

        // The JSON shapes.
        let status = try await binary.run(["status", "--json"])
        #expect(status.code == 0 && status.err.isEmpty)
        let statusJSON = try status.json()
        #expect(Set(statusJSON.keys) == ["database", "device", "accounts"])
        #expect(statusJSON["database"] as? String == binary.databasePath)
        let device = try #require(statusJSON["device"] as? [String: Any])
        #expect(
            Set(device.keys) == [
                "label", "install_marker", "token_prefix", "token_generation", "token_set_at", "previous_token_prefixes", "moved_at",
            ])
        #expect(device["token_prefix"] as? String == "77aa88bb")
        #expect(device["label"] as? String == "e2e-laptop")
        #expect(device["previous_token_prefixes"] as? [String] == ["3f2a9c01"])
        let statusAccounts = try #require(statusJSON["accounts"] as? [[String: Any]])
        #expect(statusAccounts.map { $0["condition"] as? String } == ["registered", "shadowed"])
        #expect(statusAccounts.allSatisfy { Set($0.keys) == Self.accountKeys })
        #expect(statusAccounts[0]["device_id"] as? Int == a.devices().first?.id)
        #expect(!(status.out + after.out).contains(Self.secondToken))
    }

    static let accountKeys: Set<String> = [
        "account", "instance", "username", "state", "condition", "device_id", "detail", "signed_in_at",
        "last_attempt_at", "last_success_at", "last_error", "next_retry_at", "failures", "next_retry_reason", "same_server_as",
        "token_name", "token_expires_at", "unchecked", "unchecked_since", "push_off",
    ]

    @Test("a copy of the binary away from the build folder runs --version, --help and status (no database: exit 66, nothing created)")
    func installedCopy() async throws {
        let folder = try TemporaryDirectory()
        let copy = folder.file("bin/gitbay-sync")
        try FileManager.default.createDirectory(atPath: folder.file("bin"), withIntermediateDirectories: true)
        // Copied by cp, not by this process: a file this process holds open for writing is
        // inherited by any child another test forks meanwhile, and executing it then fails
        // with "Text file busy" until that child has exec'd.
        let copied = try ChildProcess.run(
            "/bin/cp", [try BuiltBinary.located(), copy], environment: [:], output: folder.file("cp-output"))
        #expect(copied.ending.code == 0, "\(copied.output)")
        let binary = try BuiltBinary(executable: copy, folder: folder)

        let version = try await binary.run(["--version"])
        #expect(version.code == 0 && version.out == "gitbay-sync \(HelpText.version)" && version.err.isEmpty)
        let help = try await binary.run(["--help"])
        #expect(help.code == 0 && help.out.contains("Usage: gitbay-sync <command> [options]") && help.err.isEmpty)
        let status = try await binary.run(["status"])
        #expect(status.code == ExitCode.noDatabase.rawValue, "\(status.err)")
        #expect(status.out.isEmpty)
        #expect(status.err == "Error: \(FailureText.said(StoreError.noDatabase(path: binary.databasePath)))")
        #expect(!FileManager.default.fileExists(atPath: folder.file("state")))
        #expect(try await binary.run(["device", "set-token"], stdin: Self.firstToken).code == 0)
        let created = try await binary.run(["status"])
        #expect(created.code == 0, "\(created.err)")
        #expect(created.out.contains("accounts: none"))
        #expect(created.err.isEmpty)
        #expect(modeBits(folder.file("state")) == 0o700)
        #expect(modeBits(binary.databasePath) == 0o600)
        let usage = try await binary.run(["stauts"])
        #expect(usage.code == ExitCode.usage.rawValue && usage.out.isEmpty)
        #expect(
            usage.err == "Error: unknown command 'stauts'. Did you mean 'status'?\nUsage: gitbay-sync <command> [options]\nSee 'gitbay-sync --help'.")
    }
}
