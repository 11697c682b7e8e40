import Foundation
import TestSupport
import Testing

@testable import GitbaySupport
@testable import GitbaySync

/// `service install --enable` against a fake `systemctl`: a shell script that appends its
/// argv to a log, one call a line, and answers as its mode says (active, no user manager, a
/// failing `enable --now`, an inactive timer). No systemd user manager can run in this
/// container, so a fake is the only way to see what `--enable` asks and how it takes the
/// answers; the real systemctl's words ("Failed to connect to bus: No medium found") are
/// what the fake says.
@Suite("service install --enable")
struct ServiceEnableTests {
    enum Mode: String, Sendable {
        case active, noBus, failingEnable, inactive
    }

    /// A fake systemctl in `folder`, named `systemctl`, logging to `folder/calls`.
    static func fakeSystemctl(in folder: String, mode: Mode) throws -> String {
        let path = folder + "/systemctl"
        let script = """
            #!/bin/sh
            for word in "$@"; do printf '%s ' "$word"; done >> '\(folder)/calls'
            printf '\\n' >> '\(folder)/calls'
            case "\(mode.rawValue):$*" in
            noBus:*) echo "Failed to connect to bus: No medium found" >&2; exit 1 ;;
            failingEnable:*"enable --now"*) echo "Failed to enable unit: Access denied" >&2; exit 1 ;;
            inactive:*is-active*) echo inactive; exit 3 ;;
            *is-active*) echo active ;;
            esac
            exit 0

            """
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(script.utf8), attributes: [.posixPermissions: 0o755]))
        return path
    }

    /// The calls the fake logged, each its words joined by spaces.
    static func calls(_ folder: String) -> [String] {
        guard let data = fileBytes(folder + "/calls") else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func install(_ cli: CLIHarness, _ arguments: [String], environment: [String: String]) async -> CLIResult {
        await cli.run(["service", "install"] + arguments, extraEnvironment: environment) {
            $0.executablePath = { ServiceTests.executable }
            $0.systemdBooted = { true }
        }
    }

    var unitFolder: (CLIHarness) -> String { { $0.folder.path + "/config/systemd/user" } }

    @Test("reloads, enables the service, enables and starts the timer, checks it is active, and says so; $GITBAY_SYNC_SYSTEMCTL is a command line")
    func enables() async throws {
        let cli = try CLIHarness()
        let fake = cli.folder.path + "/fake bin"
        let program = try Self.fakeSystemctl(in: fake, mode: .active)
        let result = await Self.install(cli, ["--enable"], environment: ["GITBAY_SYNC_SYSTEMCTL": "'\(program)' --no-pager"])
        #expect(result.code == 0, "\(result.err)")
        #expect(
            Self.calls(fake) == [
                "--no-pager --user daemon-reload", "--no-pager --user enable gitbay-sync.service",
                "--no-pager --user enable --now gitbay-sync.timer", "--no-pager --user is-active gitbay-sync.timer",
            ])
        #expect(result.out.contains("Wrote \(unitFolder(cli))/gitbay-sync.timer"))
        #expect(result.out.contains("gitbay-sync.timer, which is active"), "\(result.out)")
        #expect(result.out.contains("loginctl enable-linger $USER"))
        #expect(!result.out.contains("Next, run:"))

        let json = await Self.install(cli, ["--enable", "--json"], environment: ["GITBAY_SYNC_SYSTEMCTL": "'\(program)'"])
        #expect(try json.json()["enabled"] as? Bool == true)
    }

    @Test(
        "without --enable, systemctl is asked only to reload, so a timer already enabled takes the new period; then what to run, or that the timer is enabled"
    )
    func withoutEnable() async throws {
        let cli = try CLIHarness()
        let fake = cli.folder.path + "/bin"
        let program = try Self.fakeSystemctl(in: fake, mode: .active)
        let result = await Self.install(cli, ["--json"], environment: ["GITBAY_SYNC_SYSTEMCTL": program, "PATH": fake])
        #expect(result.code == 0, "\(result.err)")
        #expect(Self.calls(fake) == ["--user daemon-reload"])
        let json = try result.json()
        #expect(json["enabled"] as? Bool == false)
        #expect(json["reloaded"] as? Bool == true)
        #expect(json["next"] as? String == "systemctl --user enable --now gitbay-sync.timer gitbay-sync.service")

        let folder = unitFolder(cli)
        for (target, name) in [("timers.target", "gitbay-sync.timer"), ("default.target", "gitbay-sync.service")] {
            try FileManager.default.createDirectory(atPath: folder + "/\(target).wants", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: folder + "/\(target).wants/\(name)", withDestinationPath: folder + "/" + name)
        }
        let again = await Self.install(cli, ["--every", "1h"], environment: ["GITBAY_SYNC_SYSTEMCTL": program])
        #expect(again.out.contains("Reloaded the user manager: it reads these units now."), "\(again.out)")
        #expect(again.out.contains("gitbay-sync.timer is enabled: a run every 1h from now on."))
        #expect(again.out.contains("Its runs log to `journalctl --user -u gitbay-sync.service`; `gitbay-sync status --history` lists them."))
        #expect(!again.out.contains("Next, run:"))

        let noBus = cli.folder.path + "/nobus"
        let unreachable = try Self.fakeSystemctl(in: noBus, mode: .noBus)
        let quiet = await Self.install(cli, [], environment: ["GITBAY_SYNC_SYSTEMCTL": unreachable])
        #expect(quiet.code == 0, "a manager that cannot be reached is no failure without --enable")
        #expect(quiet.out.contains("Next, run: systemctl --user daemon-reload && systemctl --user enable --now"), "\(quiet.out)")
    }

    @Test("uninstall stops and disables the units first, removes them, then reloads and forgets a failed state: nothing stays loaded")
    func uninstallStops() async throws {
        let cli = try CLIHarness()
        let fake = cli.folder.path + "/bin"
        let program = try Self.fakeSystemctl(in: fake, mode: .active)
        #expect(await Self.install(cli, ["--enable"], environment: ["GITBAY_SYNC_SYSTEMCTL": program]).code == 0)
        try FileManager.default.removeItem(atPath: fake + "/calls")
        let removed = await cli.run(["service", "uninstall"], extraEnvironment: ["GITBAY_SYNC_SYSTEMCTL": program]) { $0.systemdBooted = { true } }
        #expect(removed.code == 0, "\(removed.err)")
        #expect(
            Self.calls(fake) == [
                "--user disable --now gitbay-sync.timer gitbay-sync.service", "--user daemon-reload",
                "--user reset-failed gitbay-sync.service gitbay-sync.timer",
            ])
        #expect(removed.out.hasPrefix("Stopped and disabled gitbay-sync.timer and gitbay-sync.service.\nRemoved "), "\(removed.out)")
        #expect(removed.out.hasSuffix("Reloaded the user manager: nothing of gitbay-sync is loaded."))
        #expect(!FileManager.default.fileExists(atPath: unitFolder(cli) + "/gitbay-sync.timer"))

        // Where the manager cannot be reached, the files still go, and it says what may still be loaded.
        let noBus = cli.folder.path + "/nobus"
        let unreachable = try Self.fakeSystemctl(in: noBus, mode: .noBus)
        #expect(await Self.install(cli, [], environment: ["GITBAY_SYNC_SYSTEMCTL": unreachable]).code == 0)
        let kept = await cli.run(["service", "uninstall", "--json"], extraEnvironment: ["GITBAY_SYNC_SYSTEMCTL": unreachable]) {
            $0.systemdBooted = { true }
        }
        #expect(kept.code == 0)
        let json = try kept.json()
        #expect(json["stopped"] as? Bool == false)
        #expect((json["next"] as? String)?.hasPrefix("systemctl --user disable --now") == true)
        #expect((json["removed"] as? [String])?.count == 2)
    }

    @Test("without a user manager: exit 71, the units are written, and it says so with linger and run --every as the fixes")
    func noUserManager() async throws {
        let cli = try CLIHarness()
        let fake = cli.folder.path + "/bin"
        _ = try Self.fakeSystemctl(in: fake, mode: .noBus)
        // systemctl found on PATH, as when the variable is unset.
        let result = await Self.install(cli, ["--enable", "--every", "1h"], environment: ["PATH": fake])
        #expect(result.code == ExitCode.notEnabled.rawValue)
        #expect(result.code == 71)
        #expect(Self.calls(fake) == ["--user daemon-reload"])
        for name in ["gitbay-sync.service", "gitbay-sync.timer"] {
            #expect(FileManager.default.fileExists(atPath: unitFolder(cli) + "/" + name))
            #expect(result.out.contains("Wrote \(unitFolder(cli))/\(name)"))
        }
        let said = [
            "the units were written (", "but nothing was enabled", "found no systemd user manager",
            "(Failed to connect to bus: No medium found)", "`loginctl enable-linger $USER`", "stops the timer at logout",
            "`gitbay-sync run --every 1h` under a supervisor of your own",
        ]
        for words in said { #expect(result.err.contains(words), "\(words) in \(result.err)") }

        let json = await Self.install(cli, ["--enable", "--json"], environment: ["PATH": fake])
        let error = try #require(try json.json()["error"] as? [String: Any])
        #expect(error["kind"] as? String == "not-enabled")
        #expect(error["exit_code"] as? Int == 71)
    }

    @Test("no systemctl at all: exit 71, the units are written, and it says there is none")
    func noSystemctl() async throws {
        let cli = try CLIHarness()
        let empty = cli.folder.path + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let result = await Self.install(cli, ["--enable"], environment: ["PATH": empty])
        #expect(result.code == 71)
        #expect(result.err.contains("the units were written"))
        #expect(result.err.contains("there is no systemctl program on PATH"), "\(result.err)")
        #expect(result.err.contains("run --every 15m"))
        #expect(FileManager.default.fileExists(atPath: unitFolder(cli) + "/gitbay-sync.timer"))
    }

    @Test("a step that fails: exit 71, naming it, the steps that went through, and that nothing after it was done")
    func failingStep() async throws {
        let cli = try CLIHarness()
        let fake = cli.folder.path + "/bin"
        let program = try Self.fakeSystemctl(in: fake, mode: .failingEnable)
        let result = await Self.install(cli, ["--enable"], environment: ["GITBAY_SYNC_SYSTEMCTL": program])
        #expect(result.code == 71)
        #expect(Self.calls(fake).count == 3, "is-active is not asked after a failed enable")
        #expect(
            result.err.contains(
                "`systemctl --user enable --now gitbay-sync.timer` failed (exit 1: Failed to enable unit: Access denied); `systemctl --user daemon-reload` and `systemctl --user enable gitbay-sync.service` went through, nothing after it was done"
            ), "\(result.err)")
    }

    @Test("a timer that is not active after enabling: exit 71, saying so")
    func inactiveTimer() async throws {
        let cli = try CLIHarness()
        let fake = cli.folder.path + "/bin"
        let program = try Self.fakeSystemctl(in: fake, mode: .inactive)
        let result = await Self.install(cli, ["--enable"], environment: ["GITBAY_SYNC_SYSTEMCTL": program])
        #expect(result.code == 71)
        #expect(result.err.contains("written (") && result.err.contains(") and enabled, but"))
        #expect(result.err.contains("says the timer is not running (inactive)"), "\(result.err)")
    }

    @Test("--no-notify is written into the service's command line (and shown by service show); without it, it is not")
    func noNotifyInUnits() async throws {
        let cli = try CLIHarness()
        let path = unitFolder(cli) + "/gitbay-sync.service"
        #expect(await Self.install(cli, ["--no-notify", "--db", "/srv/x.db"], environment: [:]).code == 0)
        let quiet = String(decoding: try #require(fileBytes(path)), as: UTF8.self)
        #expect(quiet.contains(#""run" "--unattended" "--no-notify" "--db" "/srv/x.db""#), "\(quiet)")
        #expect(await Self.install(cli, ["--db", "/srv/x.db"], environment: [:]).code == 0)
        let loud = String(decoding: try #require(fileBytes(path)), as: UTF8.self)
        #expect(!loud.contains("--no-notify"))
        #expect(InstalledService.read(.systemd, folder: UnitFolder(path: unitFolder(cli))).arguments?.contains("--no-notify") == false)
        let shown = await cli.run(["service", "show", "--no-notify", "--db", "/srv/x.db"])
        #expect(shown.out.contains(#""run" "--unattended" "--no-notify" "--db" "/srv/x.db""#), "service show shows what install writes")
    }

    @Test("the launchd steps take out an agent loaded before, load the new one, then ask for it")
    func launchdSteps() {
        let plan = ServiceActivation(.launchd, userID: 501, plistPath: "/Users/me/Library/LaunchAgents/org.gitbay.gitbay-sync.plist")
        #expect(plan.program == "launchctl")
        #expect(
            plan.steps.map(\.arguments) == [
                ["bootout", "gui/501/org.gitbay.gitbay-sync"],
                ["bootstrap", "gui/501", "/Users/me/Library/LaunchAgents/org.gitbay.gitbay-sync.plist"],
                ["print", "gui/501/org.gitbay.gitbay-sync"],
            ])
        #expect(plan.steps.map(\.mayFail) == [true, false, false])
        #expect(plan.outcome(of: plan.steps[0], status: 3, output: "Boot-out failed: 3: No such process") == nil)
    }
}
