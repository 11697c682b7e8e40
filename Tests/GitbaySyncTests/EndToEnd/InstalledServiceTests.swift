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

/// The units `service install` writes, run the way systemd runs a user service: the
/// `ExecStart=` line read back from the file, the built binary as a child process, and only
/// the environment a user service gets (HOME, USER, PATH and the unit's own `Environment=`).
@Suite("The installed service, run as systemd runs it", .timeLimit(.minutes(2)))
struct InstalledServiceTests {
    /// An installing shell that has only `XDG_STATE_HOME` set (to a folder with a space).
    static func shell(_ folder: String) -> [String: String] {
        ["HOME": folder + "/home", "XDG_STATE_HOME": folder + "/xdg state", "PATH": "/usr/bin:/bin"]
    }

    /// What systemd gives a user service: no XDG_* variable, no GITBAY_SYNC_DB.
    static func serviceEnvironment(home: String) -> [String: String] {
        let user = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "nobody"
        return ["HOME": home, "USER": user, "PATH": "/usr/local/bin:/usr/bin:/bin"]
    }

    /// The unit's lines `key=value`, for `key`.
    static func values(_ key: String, in unit: String) -> [String] {
        unit.split(separator: "\n").filter { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// One command line as systemd splits it: words apart on spaces, `"…"` quoting with `\\`
    /// and `\"` escapes, `%%` for `%`, and (in a command line) `$$` for `$`. Written here
    /// apart from the product's own reader, so the two cannot share a mistake.
    static func words(_ line: String, dollars: Bool) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var started = false
        var characters = Array(line)[...]
        while let character = characters.popFirst() {
            switch character {
            case " " where !quoted:
                if started { words.append(current) }
                current = ""
                started = false
            case "\"":
                quoted.toggle()
                started = true
            case "\\":
                if let next = characters.popFirst() { current.append(next) }
            case "%" where characters.first == "%", "$" where dollars && characters.first == "$":
                characters = characters.dropFirst()
                current.append(character)
            default:
                current.append(character)
                started = true
            }
        }
        if started { words.append(current) }
        return words
    }

    /// Installs the units from `cli`'s shell, calling the built binary, and returns the
    /// service unit's text and the environment systemd would run its `ExecStart=` with.
    static func install(_ cli: CLIHarness, binary: String) async throws -> (unit: String, command: [String], environment: [String: String]) {
        let installed = await cli.run(["service", "install"]) { $0.executablePath = { binary } }
        #expect(installed.code == 0, "\(installed.err)")
        let home = try #require(cli.environment["HOME"])
        let config = cli.environment["XDG_CONFIG_HOME"] ?? home + "/.config"
        let unit = try #require(fileBytes(config + "/systemd/user/gitbay-sync.service")).utf8Text
        let command = words(try #require(values("ExecStart", in: unit).last), dollars: true)
        var environment = serviceEnvironment(home: home)
        for line in values("Environment", in: unit) {
            for assignment in words(line, dollars: false) {
                let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
                environment[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
        }
        return (unit, command, environment)
    }

    /// Runs the unit's command line (plus `extra`) as a child process with `environment`.
    static func runUnit(_ command: [String], environment: [String: String], extra: [String] = [], folder: TemporaryDirectory) async throws
        -> CLIResult
    {
        let process = try BuiltBinary(executable: command[0], environment: environment, folder: folder)
        return try await process.run(Array(command.dropFirst()) + extra)
    }

    @Test(
        "installed from a shell with only XDG_STATE_HOME set, the unit's command uses that database; a 429 with Retry-After 3600 is waited out, across runs, and reported with its time"
    )
    func sameDatabaseAndBackoff() async throws {
        let binary = try BuiltBinary.located()
        let server = try FakeGitbayServer()
        let cli = try CLIHarness(environment: Self.shell)
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let database = cli.databasePath
        #expect(database == cli.folder.path + "/xdg state/gitbay-sync/state.db")

        let (unit, command, environment) = try await Self.install(cli, binary: binary)
        #expect(command.first == binary)
        #expect(command.contains("--db"), "\(unit)")
        #expect(
            Array(command.drop { $0 != "--db" }.dropFirst().prefix(1)) == [database], "the unit names the database the shell resolves, absolutely")
        #expect(environment.keys.allSatisfy { !$0.hasPrefix("XDG_STATE") && $0 != "GITBAY_SYNC_DB" })

        // The server turns the list away for an hour.
        server.inject(.rateLimited(retryAfter: 3600), command: "notifications device list", times: 10)
        server.resetRequests()
        let first = try await Self.runUnit(command, environment: environment, folder: cli.folder)
        #expect(first.code == 1, "\(first.out)\n\(first.err)")
        #expect(first.err.contains(alice))
        #expect(server.requests().count == 1, "a Retry-After longer than a run waits is not waited for within it")
        #expect(!FileManager.default.fileExists(atPath: cli.folder.path + "/home/.local/state"), "no second database was made")

        let store = try await StateStore.open(StateLocation(databasePath: database))
        let account = try #require(try await store.account(named: alice))
        let status = try await store.status(ofAccount: account.id)
        let next = try #require(status.nextRetryAt)
        #expect(status.nextRetryReason == .retryAfter)
        #expect(abs(next.timeIntervalSinceNow - 3600) < 120)

        // The next run asks that server nothing, exits 0, and says how long the account waits, from now.
        server.resetRequests()
        let second = try await Self.runUnit(command, environment: environment, folder: cli.folder)
        #expect(second.code == 0, "\(second.out)\n\(second.err)")
        #expect(server.requests().isEmpty)
        #expect(
            second.out.contains(
                #/skipped \(error\): waiting out a backoff \(next attempt in (\d+ min|1 h)\): the server asked to wait \(Retry-After\); `gitbay-sync run --now` tries it now$/#
                    .anchorsMatchLineEndings()
            ), "\(second.out)")

        let third = try await Self.runUnit(command, environment: environment, extra: ["--json"], folder: cli.folder)
        #expect(third.code == 0, "\(third.err)")
        #expect(server.requests().isEmpty)
        let json = try third.json()
        #expect(json["ok"] as? Bool == true)
        let outcome = try #require((json["accounts"] as? [[String: Any]])?.first)
        #expect(outcome["account"] as? String == alice)
        #expect(outcome["action"] as? String == "skipped")
        #expect(outcome["requests"] as? Int == 0)
        #expect(outcome["next_retry_at"] as? String == Timestamp.format(next))
        #expect(outcome["next_retry_reason"] as? String == "retry-after")
        #expect((outcome["reason"] as? String)?.hasPrefix("waiting out a backoff (next attempt in ") == true)

        // The service's runs are recorded for doctor; the last one left the account waiting.
        let lastRun = try #require(try await store.lastUnattendedRun(.service))
        #expect(lastRun.result == .ok)
        #expect(lastRun.waiting == 1)
        #expect(lastRun.accounts == 1)

        // A person can still force an attempt.
        let forced = await cli.run(["run", "--now", "--json"])
        #expect(forced.code == 1)
        #expect(server.requests().count == 1)
    }

    @Test("a removal the service finishes runs the pre-remove hook of the installing shell's XDG_CONFIG_HOME")
    func serviceRunsTheShellsHook() async throws {
        let binary = try BuiltBinary.located()
        let server = try FakeGitbayServer()
        let cli = try CLIHarness { folder in
            ["HOME": folder + "/home", "XDG_CONFIG_HOME": folder + "/my config", "XDG_STATE_HOME": folder + "/state", "PATH": "/usr/bin:/bin"]
        }
        let alice = try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        #expect(await cli.run(["run"]).code == 0)

        // A hook that refuses once, then writes down whom it ran for.
        let hooks = cli.folder.path + "/my config/gitbay-sync/hooks"
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
        let script = """
            #!/bin/sh
            if [ -e "$0.refused" ]; then printf '%s' "$GITBAY_SYNC_ACCOUNT" > "$0.ran"; exit 0; fi
            touch "$0.refused"; echo "not yet"; exit 1

            """
        #expect(FileManager.default.createFile(atPath: hooks + "/pre-remove", contents: Data(script.utf8), attributes: [.posixPermissions: 0o755]))
        let kept = await cli.run(["remove-account", alice])
        #expect(kept.code != 0)
        #expect(kept.err.contains("not yet"))
        #expect(server.devices(of: "alice").isEmpty, "the device was deregistered before the hook ran")

        let (unit, command, environment) = try await Self.install(cli, binary: binary)
        #expect(environment["XDG_CONFIG_HOME"] == cli.folder.path + "/my config", "\(unit)")
        let finished = try await Self.runUnit(command, environment: environment, folder: cli.folder)
        #expect(finished.code == 0, "\(finished.out)\n\(finished.err)")
        #expect(fileBytes(hooks + "/pre-remove.ran")?.utf8Text == alice, "the service ran the hook before deleting the account")
        #expect(try await cli.store().account(named: alice) == nil)
    }

    @Test("the service's run never creates a database: a missing one exits 66, naming the path")
    func missingDatabase() async throws {
        let binary = try BuiltBinary.located()
        let cli = try CLIHarness(environment: Self.shell)
        let (_, command, environment) = try await Self.install(cli, binary: binary)
        let result = try await Self.runUnit(command, environment: environment, folder: cli.folder)
        #expect(result.code == 66)
        #expect(result.err.contains("Error: no state database at \(cli.databasePath); nothing was created."))
        #expect(!FileManager.default.fileExists(atPath: cli.folder.path + "/xdg state"))
        #expect(!FileManager.default.fileExists(atPath: cli.folder.path + "/home/.local/state"))
    }
}

extension Data {
    var utf8Text: String { String(decoding: self, as: UTF8.self) }
}
