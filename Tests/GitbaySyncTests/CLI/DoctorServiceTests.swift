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

@Suite("doctor: the service")
struct DoctorServiceTests {
    /// A signed-in, registered setup whose `gitbay-sync` binary is an executable file in the
    /// test's folder.
    struct Setup {
        let cli: CLIHarness
        let server: FakeGitbayServer
        let alice: String
        let executable: String
        var unitFolder: String { cli.folder.path + "/config/systemd/user" }

        init() async throws {
            server = try FakeGitbayServer()
            cli = try CLIHarness()
            alice = try await cli.login(server, "alice")
            #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
            #expect(await cli.run(["run"]).code == 0)
            try FileManager.default.createDirectory(atPath: cli.folder.path + "/bin", withIntermediateDirectories: true)
            executable = cli.folder.path + "/bin/gitbay-sync"
            #expect(FileManager.default.createFile(atPath: executable, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        }

        /// Runs `arguments` as the binary at `executable`, at `now`.
        func run(_ arguments: [String], now: Date = Date()) async -> CLIResult {
            // As on a system systemd runs, with a systemctl that reaches no manager.
            await cli.run(arguments, extraEnvironment: ["GITBAY_SYNC_SYSTEMCTL": "/bin/false"]) { context in
                context.executablePath = { [executable] in executable }
                context.now = { now }
                context.systemdBooted = { true }
            }
        }

        /// What `systemctl --user enable` makes: a link per unit under its target's `.wants`.
        func enable(_ names: [String] = ["gitbay-sync.service", "gitbay-sync.timer"]) throws {
            for name in names {
                let target = name.hasSuffix(".timer") ? "timers.target" : "default.target"
                try FileManager.default.createDirectory(atPath: unitFolder + "/\(target).wants", withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(
                    atPath: unitFolder + "/\(target).wants/\(name)", withDestinationPath: unitFolder + "/" + name)
            }
        }

        /// The service checks of `doctor --json`, by name, and the exit code.
        func serviceChecks(now: Date = Date()) async throws -> (code: Int32, checks: [String: [String: Any]]) {
            let result = await run(["doctor", "--json"], now: now)
            let checks = try #require(try result.json()["checks"] as? [[String: Any]])
            let service = checks.filter { ($0["name"] as? String)?.hasPrefix("service.") == true }
            return (result.code, Dictionary(uniqueKeysWithValues: service.map { ($0["name"] as! String, $0) }))
        }
    }

    @Test("no service installed: a warning that passes, with how to install it and that running by hand is fine")
    func missingService() async throws {
        let setup = try await Setup()
        let (code, checks) = try await setup.serviceChecks()
        #expect(code == 0, "a missing service fails nothing")
        #expect(Set(checks.keys) == ["service.units"])
        let units = try #require(checks["service.units"])
        #expect(units["ok"] as? Bool == true)
        #expect(units["level"] as? String == "warning")
        #expect(units["subject"] as? String == setup.unitFolder)
        #expect((units["detail"] as? String)?.contains("nothing runs gitbay-sync at login or on a timer") == true)
        #expect((units["fix"] as? String)?.contains("`gitbay-sync service install`") == true)
        #expect((units["fix"] as? String)?.contains("run `gitbay-sync run` yourself") == true)

        let text = await setup.run(["doctor"])
        #expect(text.out.contains("WARN  service.units  \(setup.unitFolder): no gitbay-sync units"))
        #expect(text.out.hasSuffix("passed, 2 with a warning."), "the service, and the token kept in the database")
    }

    @Test("installed, enabled, this binary and database, and a recorded run: every service check passes")
    func healthyService() async throws {
        let setup = try await Setup()
        #expect(await setup.run(["service", "install", "--every", "30m"]).code == 0)
        try setup.enable()
        let ranAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        #expect(await setup.run(["run", "--unattended"], now: ranAt).code == 0)

        let (code, checks) = try await setup.serviceChecks(now: ranAt.addingTimeInterval(600))
        #expect(code == 0)
        #expect(Set(checks.keys) == ["service.units", "service.command", "service.last-run"])
        #expect(checks.values.allSatisfy { $0["level"] as? String == "ok" && $0["fix"] is NSNull }, "\(checks)")
        #expect(
            checks["service.units"]?["detail"] as? String == "installed and enabled: gitbay-sync.service runs at login, gitbay-sync.timer every 30m")
        #expect(checks["service.command"]?["subject"] as? String == setup.unitFolder + "/gitbay-sync.service")
        #expect(
            (checks["service.command"]?["detail"] as? String)?.hasPrefix("runs `gitbay-sync run --unattended` by this binary (\(setup.executable))")
                == true)
        #expect(checks["service.last-run"]?["subject"] as? String == "gitbay-sync.service")
        #expect(checks["service.last-run"]?["detail"] as? String == "last ran at \(Timestamp.format(ranAt)) (10 min ago): ok, 1 account")
    }

    @Test("installed but not enabled: the timer never runs, which fails with the enable command")
    func notEnabled() async throws {
        let setup = try await Setup()
        #expect(await setup.run(["service", "install"]).code == 0)
        var (code, checks) = try await setup.serviceChecks()
        #expect(code == 1)
        #expect(checks["service.units"]?["level"] as? String == "fail")
        #expect((checks["service.units"]?["detail"] as? String)?.contains("neither unit is enabled") == true)
        #expect(
            checks["service.units"]?["fix"] as? String
                == "`systemctl --user daemon-reload && systemctl --user enable --now gitbay-sync.timer gitbay-sync.service`")
        #expect(checks["service.command"]?["level"] as? String == "ok")
        #expect(checks["service.last-run"]?["level"] as? String == "warning", "no run recorded yet")

        // Only the timer enabled: it still runs, just not at login.
        try setup.enable(["gitbay-sync.timer"])
        (code, checks) = try await setup.serviceChecks()
        #expect(checks["service.units"]?["level"] as? String == "warning")
        #expect((checks["service.units"]?["detail"] as? String)?.contains("not at login") == true)
    }

    @Test("units that use another database, another hook folder and a binary that is gone fail, naming both sides and the fix")
    func wrongCommand() async throws {
        let setup = try await Setup()
        let other = setup.cli.folder.path + "/elsewhere/state.db"
        // Installed from a shell with another config folder and --db.
        let installed = await setup.cli.run(
            ["service", "install", "--db", other], extraEnvironment: ["XDG_CONFIG_HOME": setup.cli.folder.path + "/config"]
        ) { context in
            context.executablePath = { "/nonexistent/gitbay-sync" }
        }
        #expect(installed.code == 0)
        // The unit, rewritten as if another shell's config folder had been used.
        let path = setup.unitFolder + "/gitbay-sync.service"
        let unit = try #require(fileBytes(path)).utf8Text
            .replacingOccurrences(of: "XDG_CONFIG_HOME=\(setup.cli.folder.path)/config", with: "XDG_CONFIG_HOME=/somewhere/else")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(unit.utf8)))
        // This shell has a pre-remove hook the service would not run.
        let hooks = setup.cli.folder.path + "/config/gitbay-sync/hooks"
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
        #expect(
            FileManager.default.createFile(atPath: hooks + "/pre-remove", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        try setup.enable()

        let (code, checks) = try await setup.serviceChecks()
        #expect(code == 1)
        let command = try #require(checks["service.command"])
        #expect(command["level"] as? String == "fail")
        let detail = try #require(command["detail"] as? String)
        #expect(detail.contains("it calls /nonexistent/gitbay-sync, which is not an executable file"))
        #expect(detail.contains("it uses the database \(other); this shell uses \(setup.cli.databasePath)"))
        #expect(
            detail.contains("it looks for the pre-remove hook at /somewhere/else/gitbay-sync/hooks/pre-remove; this shell's is \(hooks)/pre-remove"))
        #expect((command["fix"] as? String)?.hasPrefix("run `gitbay-sync service install` with the binary and in the shell you use") == true)
        #expect(checks["service.last-run"]?["level"] as? String == "warning", "the service records its runs in the other database")
    }

    @Test("units written by an earlier gitbay-sync (no --db, no --unattended) and hand-written ones are read and judged")
    func olderUnits() async throws {
        let setup = try await Setup()
        try FileManager.default.createDirectory(atPath: setup.unitFolder, withIntermediateDirectories: true)
        let service = """
            [Service]
            Type=oneshot
            ExecStart=-"\(setup.executable)" run

            """
        #expect(FileManager.default.createFile(atPath: setup.unitFolder + "/gitbay-sync.service", contents: Data(service.utf8)))
        #expect(
            FileManager.default.createFile(atPath: setup.unitFolder + "/gitbay-sync.timer", contents: Data("[Timer]\nOnUnitActiveSec=15m\n".utf8)))
        try setup.enable()

        let (_, checks) = try await setup.serviceChecks()
        #expect((checks["service.units"]?["detail"] as? String)?.contains("not written by `gitbay-sync service install`") == true)
        let command = try #require(checks["service.command"])
        // The harness's shell sets XDG_STATE_HOME; a service would not, so it would use ~/.local/state.
        #expect(command["level"] as? String == "fail")
        #expect(
            (command["detail"] as? String)?.contains(
                "it uses the database \(setup.cli.folder.path)/.local/state/gitbay-sync/state.db; this shell uses \(setup.cli.databasePath)") == true)
        #expect((command["detail"] as? String)?.contains("it does not pass --unattended") == true)
        #expect((command["fix"] as? String)?.contains("`gitbay-sync service install --force`") == true)
    }

    @Test("where systemd does not run the system: units are a warning naming that and what works there; an autostart entry passes")
    func withoutSystemd() async throws {
        let setup = try await Setup()
        let unmanaged = { (arguments: [String]) in
            await setup.cli.run(arguments) { context in
                context.executablePath = { [executable = setup.executable] in executable }
                context.systemdBooted = { false }
            }
        }
        let none = try DoctorTests.checks(await unmanaged(["doctor", "--json"]))
        let absent = try #require(none["service.units \(setup.unitFolder)"])
        #expect((absent["fix"] as? String)?.contains("no systemd user manager runs here (/run/systemd/system is absent)") == true, "\(absent)")
        #expect((absent["fix"] as? String)?.contains("`gitbay-sync service install --autostart`") == true)

        #expect(await unmanaged(["service", "install"]).code == 0)
        try setup.enable()
        let installed = try DoctorTests.checks(await unmanaged(["doctor", "--json"]))
        let units = try #require(installed["service.units \(setup.unitFolder)"])
        #expect(units["level"] as? String == "warning")
        #expect((units["detail"] as? String)?.hasPrefix("installed, but no systemd user manager runs here") == true, "\(units)")
        #expect((units["fix"] as? String)?.contains("`gitbay-sync run --every 15m` under a supervisor of your own") == true)

        #expect(await unmanaged(["service", "uninstall"]).code == 0)
        #expect(await unmanaged(["service", "install", "--autostart"]).code == 0)
        let entry = setup.cli.folder.path + "/config/autostart/gitbay-sync.desktop"
        let autostart = try DoctorTests.checks(await unmanaged(["doctor", "--json"]))
        let check = try #require(autostart["service.units \(entry)"], "\(autostart.keys)")
        #expect(check["level"] as? String == "ok")
        #expect((check["detail"] as? String)?.hasPrefix("an autostart entry starts `gitbay-sync run --every`") == true)
    }

    @Test("the last run's result and age: a failed run and an old one are warnings with their fixes")
    func lastRunResults() async throws {
        let setup = try await Setup()
        let down = try FakeGitbayServer()
        let bob = try await setup.cli.login(down, "bob")
        #expect(await setup.run(["service", "install"]).code == 0)
        try setup.enable()
        down.isDown = true
        let ranAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        #expect(await setup.run(["run", "--unattended"], now: ranAt).code == 1)

        var (code, checks) = try await setup.serviceChecks(now: ranAt.addingTimeInterval(60))
        var lastRun = try #require(checks["service.last-run"])
        #expect(lastRun["level"] as? String == "warning")
        #expect(lastRun["detail"] as? String == "last ran at \(Timestamp.format(ranAt)) (1 min ago): 1 of 2 accounts failed (\(bob))")
        #expect((lastRun["fix"] as? String)?.contains("`gitbay-sync status`") == true)
        #expect((lastRun["fix"] as? String)?.contains("journalctl --user -u gitbay-sync") == true)

        down.isDown = false
        #expect(await setup.run(["run", "--unattended", "--now"], now: ranAt.addingTimeInterval(120)).code == 0)
        // Two hours later, with a 15 minute timer: it has not run for too long.
        (code, checks) = try await setup.serviceChecks(now: ranAt.addingTimeInterval(2 * 3600))
        #expect(code == 0, "an old run is a warning")
        lastRun = try #require(checks["service.last-run"])
        #expect(lastRun["level"] as? String == "warning")
        #expect((lastRun["detail"] as? String)?.hasSuffix("ok, 2 accounts; that is more than twice its period (15m) ago") == true)
        #expect((lastRun["fix"] as? String)?.contains("systemctl --user status gitbay-sync.timer gitbay-sync.service") == true)
    }
}
