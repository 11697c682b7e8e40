import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySync

/// The service under a real systemd user manager (`SystemdUserManager`): the built binary
/// installs, enables and uninstalls its units with the real systemctl, the timer starts the
/// real `run --unattended` against a fake server, and a failed run starts the `OnFailure=`
/// unit. One manager per test, one test at a time: two managers would share this process's
/// control group.
@Suite(
    "A live systemd user manager", .serialized, .timeLimit(.minutes(4)),
    .enabled(if: SystemdUserManager.runs, "no systemd user manager can start here: it needs root, systemd and `unshare -m`")
)
struct LiveUserManagerTests {
    /// A signed-in account with a device token, and a user manager for the test's home.
    struct World {
        let server: FakeGitbayServer
        let cli: CLIHarness
        let manager: SystemdUserManager
        let binary: BuiltBinary
        var unitFolder: String { cli.folder.path + "/config/systemd/user" }

        /// `gitbay-sync` with `arguments`, inside the manager's namespace, in the shell the
        /// account was signed in from.
        func gitbaySync(_ arguments: [String]) async throws -> CLIResult {
            try await binary.run(arguments, launcher: manager.launcher)
        }

        /// The units of gitbay-sync the manager has loaded, one line each.
        func loadedUnits() throws -> [String] {
            let listed = try manager.systemctl(["list-units", "--all", "--plain", "--no-legend", "gitbay-sync*"])
            return listed.output.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        }

        /// A property of a unit, as `systemctl show -p` gives it.
        func property(_ name: String, of unit: String) throws -> String {
            try manager.systemctl(["show", "-p", name, unit]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Runs `body` with a world whose manager is stopped afterwards, whatever happens.
    static func withWorld(_ body: (World) async throws -> Void) async throws {
        if let reason = SystemdUserManager.unavailableReason {
            Issue.record("CI=true and no systemd user manager can start: \(reason)")
            return
        }
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let home = try #require(cli.environment["HOME"])
        let manager = try await SystemdUserManager(home: home, configHome: cli.folder.path + "/config", folder: cli.folder)
        let binary = try BuiltBinary(
            executable: try BuiltBinary.located(), environment: cli.environment.merging(manager.environment) { $1 }, folder: cli.folder)
        do {
            try await body(World(server: server, cli: cli, manager: manager, binary: binary))
        } catch {
            await manager.stop()
            throw error
        }
        await manager.stop()
    }

    /// Waits until `done` holds, checking every 200 ms, for at most `limit`.
    static func eventually(within limit: Duration, _ done: () async throws -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while clock.now < deadline {
            if try await done() { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return try await done()
    }

    @Test(
        "install --enable --every 10s: the timer runs the service, which registers the device, and doctor sees the run; a reinstall's period holds without a daemon-reload by hand; uninstall stops and disables them and leaves nothing loaded"
    )
    func timerRunsTheService() async throws {
        try await Self.withWorld { world in
            let installed = try await world.gitbaySync(["service", "install", "--enable", "--every", "10s"])
            #expect(installed.code == 0, "\(installed.out)\n\(installed.err)")
            #expect(installed.out.contains("gitbay-sync.timer, which is active: a run every 10s"), "\(installed.out)")
            #expect(!installed.out.contains("No systemd user manager"), "this namespace runs one")
            #expect(installed.out.contains("`journalctl --user -u gitbay-sync.service`; `gitbay-sync status --history` lists them"))

            // The timer fires (10s, a second of spread) and the service's run registers the device.
            let store = try await world.cli.store()
            let ran = try await Self.eventually(within: .seconds(60)) {
                try await store.runHistory().contains { $0.start.trigger == .timer }
            }
            #expect(
                ran, "no run started by the timer within a minute: \((try? world.manager.systemctl(["status", "gitbay-sync.timer"]).output) ?? "")")
            #expect(world.server.devices(of: "alice").count == 1, "the timer's run registered the device")
            let lastRun = try #require(try await store.lastUnattendedRun(.service))
            #expect(lastRun.result == .ok)
            #expect(lastRun.accounts == 1)

            let doctor = try await world.gitbaySync(["doctor", "--json"])
            let checks = try #require(try doctor.json()["checks"] as? [[String: Any]])
            let last = try #require(checks.first { $0["name"] as? String == "service.last-run" }, "\(doctor.out)")
            #expect(last["level"] as? String == "ok", "\(last)")
            #expect((last["detail"] as? String)?.contains(": ok, 1 account") == true, "\(last)")
            let units = try #require(checks.first { $0["name"] as? String == "service.units" })
            #expect(units["detail"] as? String == "installed and enabled: gitbay-sync.service runs at login, gitbay-sync.timer every 10s")

            // Another period, without --enable: the manager reads it at once.
            let again = try await world.gitbaySync(["service", "install", "--every", "1h"])
            #expect(again.code == 0, "\(again.err)")
            #expect(again.out.contains("Reloaded the user manager"), "\(again.out)")
            #expect(again.out.contains("gitbay-sync.timer is enabled: a run every 1h from now on."), "\(again.out)")
            #expect(try world.property("NeedDaemonReload", of: "gitbay-sync.timer") == "NeedDaemonReload=no")
            #expect(try world.property("TimersMonotonic", of: "gitbay-sync.timer").contains("OnUnitActiveUSec=1h ;"))

            let removed = try await world.gitbaySync(["service", "uninstall"])
            #expect(removed.code == 0, "\(removed.err)")
            #expect(removed.out.hasPrefix("Stopped and disabled gitbay-sync.timer and gitbay-sync.service."), "\(removed.out)")
            #expect(removed.out.contains("nothing of gitbay-sync is loaded"))
            #expect(try world.loadedUnits() == [], "nothing of gitbay-sync stays loaded")
            #expect(try world.manager.systemctl(["is-active", "gitbay-sync.timer"]).output.hasPrefix("inactive"))
            for link in ["timers.target.wants/gitbay-sync.timer", "default.target.wants/gitbay-sync.service", "gitbay-sync.timer"] {
                #expect(!FileManager.default.fileExists(atPath: world.unitFolder + "/" + link))
            }
        }
    }

    @Test("a run that fails starts the OnFailure= unit, given the failed unit's name; status --history shows the failed run")
    func failedRunStartsOnFailure() async throws {
        try await Self.withWorld { world in
            // The template the service names, written as a user would.
            let marker = world.cli.folder.path + "/failed"
            let template = """
                [Service]
                Type=oneshot
                ExecStart=/bin/sh -c 'printf %%s "%i" > "\(marker)"'

                """
            try FileManager.default.createDirectory(atPath: world.unitFolder, withIntermediateDirectories: true)
            try template.write(toFile: world.unitFolder + "/gitbay-sync-failure@.service", atomically: true, encoding: .utf8)
            #expect(try await world.gitbaySync(["service", "install"]).code == 0)

            world.server.inject(.reset, times: 100)
            let started = try world.manager.systemctl(["start", "gitbay-sync.service"])
            #expect(started.code != 0, "the run failed, so did the oneshot service: \(started.output)")
            let failed = try await Self.eventually(within: .seconds(30)) { fileBytes(marker) != nil }
            #expect(
                failed,
                "the OnFailure= unit did not run: \((try? world.manager.systemctl(["status", "gitbay-sync-failure@gitbay-sync.service.service"]).output) ?? "")"
            )
            #expect(fileBytes(marker).map { String(decoding: $0, as: UTF8.self) } == "gitbay-sync.service")
            #expect(try world.property("Result", of: "gitbay-sync.service") == "Result=exit-code")

            let history = try await world.gitbaySync(["status", "--history", "--json"])
            let runs = try #require(try history.json()["runs"] as? [[String: Any]], "\(history.out)")
            #expect(runs.first?["trigger"] as? String == "service", "started by hand, not by the timer")
            #expect(runs.first?["result"] as? String == "failed")
            let lastRun = try #require(try await world.cli.store().lastUnattendedRun(.service))
            #expect(lastRun.result == .failed)
            #expect(try world.manager.systemctl(["is-failed", "gitbay-sync.service"]).output.hasPrefix("failed"))

            // Uninstall forgets the failed state too: nothing stays loaded.
            #expect(try await world.gitbaySync(["service", "uninstall"]).code == 0)
            #expect(try world.loadedUnits() == [])
        }
    }
}
