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

@Suite("doctor")
struct DoctorTests {
    /// The checks from `doctor --json`, keyed by "name subject".
    static func checks(_ result: CLIResult) throws -> [String: [String: Any]] {
        let checks = try #require(try result.json()["checks"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: checks.map { ("\($0["name"]!) \($0["subject"]!)", $0) })
    }

    /// Everything doctor might change in the database, for comparison.
    static func snapshot(_ cli: CLIHarness) async throws -> String {
        let store = try await cli.store()
        var text = ""
        for account in try await store.accounts() {
            text += "\(account) \(try await store.status(ofAccount: account.id)) \(try await store.registrations(ofAccount: account.id))\n"
        }
        text += "\(String(describing: try await store.storedDevice()))"
        return text
    }

    @Test("a healthy setup passes every check, with reads only and the database unchanged")
    func healthy() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        #expect(await cli.run(["run"]).code == 0)
        let before = try await Self.snapshot(cli)
        server.resetRequests()

        let result = await cli.run(["doctor", "--json"])
        #expect(result.code == 0, "\(result.out)")
        #expect(try result.json()["ok"] as? Bool == true)
        let checks = try Self.checks(result)
        let path = cli.databasePath
        #expect(
            Set(checks.keys) == [
                "database.integrity \(path)", "database.schema \(path)", "database.permissions \(path)", "database.leases \(path)",
                "device.token device", "account.reachable \(alice)", "account.token \(alice)", "account.push \(alice)",
                "instance.push \(alice)", "account.device \(alice)", "service.units \(cli.folder.path)/config/systemd/user",
                "install.machine device", "account.token_store \(alice)",
            ])
        // Every check passes outright, but for the service that is not installed and the token
        // kept in the database (no keyring here): warnings that pass.
        let warned: Set<String?> = ["service.units", "account.token_store"]
        #expect(
            checks.values.filter { !warned.contains($0["name"] as? String) }.allSatisfy {
                $0["ok"] as? Bool == true && $0["fix"] is NSNull && $0["level"] as? String == "ok"
            })
        #expect(
            checks.values.filter { warned.contains($0["name"] as? String) }.allSatisfy {
                $0["ok"] as? Bool == true && $0["level"] as? String == "warning"
            })
        #expect(checks["account.device \(alice)"]?["detail"] as? String == "row 1 holds this device's token")
        #expect(!server.requests().isEmpty)
        #expect(server.requests().allSatisfy { !$0.isWrite }, "doctor never writes to a server")
        #expect(try await Self.snapshot(cli) == before)

        let text = await cli.run(["doctor"])
        #expect(text.code == 0)
        // Problems first, the checks that passed folded into one line, the database said once.
        let lines = text.out.split(separator: "\n").map(String.init)
        #expect(lines.first == "database: \(cli.databasePath)", "\(text.out)")
        #expect(lines.dropFirst().first?.hasPrefix("WARN") == true, "\(text.out)")
        #expect(lines.contains("OK    11 checks passed (`gitbay-sync doctor -v` lists them)"), "\(text.out)")
        #expect(text.out.components(separatedBy: cli.databasePath).count == 2, "\(text.out)")
        #expect(!text.out.contains("OK    account.token"), "\(text.out)")
        #expect(text.out.hasSuffix("All 13 checks passed, 2 with a warning."))
        let verbose = await cli.run(["doctor", "-v"])
        #expect(verbose.out.contains("OK    account.token  \(alice): valid (whoami: alice)"), "\(verbose.out)")
        let narrow = await cli.run(["doctor"], extraEnvironment: ["COLUMNS": "80"]) { $0.console.outputIsTerminal = true }
        let wide = narrow.out.split(separator: "\n").filter { TextLayout.columns(String($0)) > 80 && $0.contains(" ") }
        #expect(wide.isEmpty || wide.allSatisfy { $0.split(separator: " ").contains { $0.count > 60 } }, "\(narrow.out)")
        #expect(!text.out.contains("c0ffee00aaaa"), "only the token's first 8 bytes are shown")
    }

    @Test("a broken setup fails the right checks, each with its fix, and exits 1")
    func broken() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        // alice: registered, then her row is removed on the web.
        let alice = try await cli.login(server, "alice")
        // bob (another instance): his token is revoked.
        let bobServer = try FakeGitbayServer()
        let bobToken = bobServer.mintToken(for: "bob")
        #expect(await cli.run(["login", bobServer.baseURL], stdin: bobToken).code == 0)
        let bob = "bob@127.0.0.1:\(bobServer.port)"
        // carol (another instance): push off for her account, and the instance sends no pushes.
        let carolServer = try FakeGitbayServer()
        let carolToken = carolServer.mintToken(for: "carol")
        carolServer.pushEnabled = false
        _ = await cli.run(["login", carolServer.baseURL], stdin: carolToken)
        let carol = "carol@127.0.0.1:\(carolServer.port)"
        let carolClient = GitbayClient(
            instance: try InstanceURL(parsing: carolServer.baseURL), apiToken: Secret(carolToken), accountName: carol,
            configuration: CLIHarness.client, logger: .disabled
        )
        _ = try await carolClient.setPush(false)
        // dave (another instance): the server is down.
        let daveServer = try FakeGitbayServer()
        let dave = try await cli.login(daveServer, "dave")
        daveServer.isDown = true

        server.deleteDevice(id: try #require(server.devices(of: "alice").first?.id))
        bobServer.revokeToken(bobToken)
        for fake in [server, bobServer, carolServer, daveServer] { fake.resetRequests() }
        let before = try await Self.snapshot(cli)

        let result = await cli.run(["doctor", "--json"])
        #expect(result.code == 1)
        #expect(try result.json()["ok"] as? Bool == false)
        let checks = try Self.checks(result)
        let failed = Set(checks.filter { $0.value["ok"] as? Bool == false }.keys)
        #expect(
            failed == [
                "account.device \(alice)", "account.token \(bob)", "instance.push \(carol)", "account.device \(carol)",
                "account.reachable \(dave)",
            ])
        #expect(checks["account.push \(carol)"]?["level"] as? String == "warning", "push turned off is the user's choice")
        #expect(checks.filter { $0.value["ok"] as? Bool == false }.values.allSatisfy { ($0["fix"] as? String)?.isEmpty == false })
        #expect((checks["account.token \(bob)"]?["fix"] as? String)?.contains("gitbay-sync login \(bobServer.baseURL)") == true)
        let fix = checks["account.token \(bob)"]?["fix"] as? String ?? ""
        #expect(fix.contains("`ssh git@127.0.0.1 token create --name gitbay-sync --scope full`"), "\(fix)")
        #expect(fix.contains("`gitbay-sync login \(bobServer.baseURL) --ssh`"), "\(fix)")
        #expect((checks["account.push \(carol)"]?["fix"] as? String)?.contains("gitbay-sync push on \(carol)") == true)
        #expect((checks["instance.push \(carol)"]?["fix"] as? String)?.contains("[push] enabled = true") == true)
        #expect(checks["account.reachable \(bob)"]?["ok"] as? Bool == true)
        #expect(
            (checks["account.reachable \(dave)"]?["detail"] as? String)?.hasPrefix("\(daveServer.baseURL) cannot be reached: `whoami` failed") == true
        )
        #expect(checks["account.token \(dave)"] == nil, "nothing more is asked of an instance that cannot be reached")
        for fake in [server, bobServer, carolServer] {
            #expect(fake.requests().allSatisfy { !$0.isWrite })
        }
        #expect(try await Self.snapshot(cli) == before)

        let text = await cli.run(["doctor"])
        #expect(text.code == 1)
        #expect(text.out.contains("FAIL  account.device  \(alice): no row of this device on the server"))
        #expect(text.out.contains("      fix: `gitbay-sync run` registers it"))
        #expect(text.out.hasSuffix("5 of 24 checks failed, 6 with a warning."), "\(text.out)")
    }

    @Test("an account whose push switch is off: a warning with the fix, and doctor exits 0")
    func pushOff() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        #expect(await cli.run(["run"]).code == 0)
        #expect(await cli.run(["push", "off", alice]).code == 0)
        let result = await cli.run(["doctor"])
        #expect(result.code == 0, "\(result.out)")
        #expect(result.out.contains("WARN  account.push  \(alice): push notifications are off for the account"), "\(result.out)")
        #expect(result.out.contains("fix: `gitbay-sync push on \(alice)`"))
    }

    @Test("no database: one failing check (and the service's note), and none is created")
    func noDatabase() async throws {
        let cli = try CLIHarness()
        let result = await cli.run(["doctor", "--json"])
        #expect(result.code == 1)
        let checks = try Self.checks(result)
        #expect(checks.keys.sorted() == ["database \(cli.databasePath)", "service.units \(cli.folder.path)/config/systemd/user"])
        #expect(checks.values.filter { $0["ok"] as? Bool == false }.count == 1)
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath))
    }

    @Test("no device token and no account: both fail with their fixes")
    func nothingSet() async throws {
        let cli = try CLIHarness()
        _ = try await cli.store()
        let result = await cli.run(["doctor", "--json"])
        #expect(result.code == 1)
        let checks = try Self.checks(result)
        #expect(checks["device.token device"]?["ok"] as? Bool == false)
        #expect((checks["device.token device"]?["fix"] as? String)?.contains("device set-token") == true)
        #expect(checks["accounts accounts"]?["ok"] as? Bool == false)
        #expect(checks["database.integrity \(cli.databasePath)"]?["ok"] as? Bool == true)
    }

    @Test("a run in progress passes the leases check; one holding an account for ten minutes fails it")
    func leasesHeld() async throws {
        let cli = try CLIHarness()
        let server = try FakeGitbayServer()
        let alice = try await cli.login(server, "alice")
        let store = try await cli.store()
        let id = try #require(try await store.account(named: alice)).id
        let key = "database.leases \(cli.databasePath)"
        #expect(try Self.checks(await cli.run(["doctor", "--json"]))[key]?["detail"] as? String == "no run in progress")
        let holder = LeaseHolder.new()
        _ = try await store.takeLeases([id], holder: holder)
        #expect(try Self.checks(await cli.run(["doctor", "--json"]))[key]?["ok"] as? Bool == true)
        try await store.releaseLeases([id], holder: holder)
        _ = try await store.takeLeases([id], holder: holder, now: Date().addingTimeInterval(-11 * 60))
        let stuck = try Self.checks(await cli.run(["doctor", "--json"]))[key]
        #expect(stuck?["ok"] as? Bool == false)
        #expect((stuck?["fix"] as? String)?.contains("kill \(getpid())") == true)
    }
}
