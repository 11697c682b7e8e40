import Foundation
import TestSupport
import Testing

@testable import GitbaySupport
@testable import GitbaySync

/// `service install` where no systemd runs the system (`/run/systemd/system` absent): it says
/// so first and leads with what works there, `run --every` under a supervisor or an XDG
/// autostart entry in a desktop session, which `--autostart` writes and `service uninstall`
/// removes.
@Suite("service install without a systemd user manager")
struct ServiceWithoutSystemdTests {
    static func run(_ cli: CLIHarness, _ arguments: [String], environment: [String: String] = [:], booted: Bool = false) async -> CLIResult {
        await cli.run(arguments, extraEnvironment: environment) {
            $0.executablePath = { ServiceTests.executable }
            $0.systemdBooted = { booted }
        }
    }

    @Test("systemd's own test: /run/systemd/system must be a folder, not a file or a link to one")
    func presence() throws {
        let folder = try TemporaryDirectory()
        #expect(!SystemdPresence.booted(marker: folder.path + "/system"))
        try FileManager.default.createDirectory(atPath: folder.path + "/real", withIntermediateDirectories: true)
        #expect(SystemdPresence.booted(marker: folder.path + "/real"))
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/system", withDestinationPath: folder.path + "/real")
        #expect(!SystemdPresence.booted(marker: folder.path + "/system"))
        #expect(FileManager.default.createFile(atPath: folder.path + "/file", contents: Data()))
        #expect(!SystemdPresence.booted(marker: folder.path + "/file"))
    }

    @Test("install says first that no user manager runs here, then what works, and asks systemctl nothing")
    func saysSoFirst() async throws {
        let cli = try CLIHarness()
        let fake = cli.folder.path + "/bin"
        let program = try ServiceEnableTests.fakeSystemctl(in: fake, mode: .active)
        let result = await Self.run(cli, ["service", "install", "--every", "1h"], environment: ["GITBAY_SYNC_SYSTEMCTL": program])
        #expect(result.code == 0, "\(result.err)")
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("No systemd user manager runs here: /run/systemd/system is absent") == true, "\(result.out)")
        #expect(
            lines.dropFirst().first?.hasPrefix(
                "What works here: `gitbay-sync run --every 1h` kept running by a supervisor of your own (runit, s6, supervisord, a container's command), or in a desktop session `gitbay-sync service install --autostart`"
            ) == true, "\(result.out)")
        #expect(ServiceEnableTests.calls(fake).isEmpty)
        #expect(!result.out.contains("Reloaded"))
    }

    @Test("install --enable: exit 71 before asking systemctl anything, leading with the absence and what works")
    func enableRefused() async throws {
        let cli = try CLIHarness()
        let fake = cli.folder.path + "/bin"
        let program = try ServiceEnableTests.fakeSystemctl(in: fake, mode: .active)
        let result = await Self.run(cli, ["service", "install", "--enable"], environment: ["GITBAY_SYNC_SYSTEMCTL": program])
        #expect(result.code == 71)
        #expect(ServiceEnableTests.calls(fake).isEmpty, "no systemctl call where no systemd runs")
        #expect(result.out.hasPrefix("No systemd user manager runs here"), "\(result.out)")
        #expect(result.err.contains("/run/systemd/system is absent, so no systemd user manager runs here"), "\(result.err)")
        #expect(result.err.contains("`gitbay-sync service install --autostart`"))
    }

    @Test(
        "--autostart writes $XDG_CONFIG_HOME/autostart/gitbay-sync.desktop running `run --every` by this binary with the database, says where its output goes, and uninstall removes it"
    )
    func autostart() async throws {
        let cli = try CLIHarness()
        let result = await Self.run(cli, ["service", "install", "--autostart", "--every", "30m", "--db", "/srv/a b/$x 5%.db"])
        #expect(result.code == 0, "\(result.err)")
        let path = cli.folder.path + "/config/autostart/gitbay-sync.desktop"
        let entry = String(decoding: try #require(fileBytes(path)), as: UTF8.self)
        #expect(
            entry == #"""
                # Written by `gitbay-sync service install`; `gitbay-sync service uninstall` removes it.
                [Desktop Entry]
                Type=Application
                Name=gitbay-sync
                Comment=Keep this device's gitbay push registration true, while this session lasts
                Exec="/opt/gitbay sync/bin/gitbay-sync" "run" "--every" "30m" "--db" "/srv/a b/\\$x 5%%.db"
                Terminal=false
                NoDisplay=true
                X-GNOME-Autostart-enabled=true

                """#, "\(entry)")
        #expect(result.out.contains("Wrote \(path)"))
        #expect(result.out.contains("From your next login, the desktop session starts `gitbay-sync run --every 30m`"))
        #expect(result.out.contains("`gitbay-sync status --history` lists its runs"))
        #expect(!FileManager.default.fileExists(atPath: cli.folder.path + "/config/systemd/user/gitbay-sync.service"), "no units besides")

        let removed = await Self.run(cli, ["service", "uninstall"])
        #expect(removed.code == 0, "\(removed.err)")
        #expect(removed.out.contains("Removed \(path)"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("--autostart without XDG_CONFIG_HOME goes to ~/.config/autostart; a hand-written entry is left alone without --force")
    func autostartHome() async throws {
        let cli = try CLIHarness { folder in ["HOME": folder + "/home", "XDG_STATE_HOME": folder + "/state", "PATH": "/usr/bin:/bin"] }
        let folder = cli.folder.path + "/home/.config/autostart"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: folder + "/gitbay-sync.desktop", contents: Data("[Desktop Entry]\n".utf8)))
        let refused = await Self.run(cli, ["service", "install", "--autostart"])
        #expect(refused.code == 78, "\(refused.err)")
        let forced = await Self.run(cli, ["service", "install", "--autostart", "--force"])
        #expect(forced.code == 0, "\(forced.err)")
        #expect(String(decoding: try #require(fileBytes(folder + "/gitbay-sync.desktop")), as: UTF8.self).contains("\"--every\" \"15m\""))
    }

    @Test("--autostart and --enable together are a usage error")
    func autostartAndEnable() async throws {
        let cli = try CLIHarness()
        let result = await Self.run(cli, ["service", "install", "--autostart", "--enable"])
        #expect(result.code == 64)
        #expect(result.err.contains("--enable and --autostart do not go together"))
    }

    @Test("an entry's Exec= quoting: \", `, $ and \\ escaped twice over, % doubled, and no control character")
    func execQuoting() {
        #expect(AutostartEntry.quoted(#"a "b" `c` $d \e 5%"#) == #""a \\"b\\" \\`c\\` \\$d \\\\e 5%%""#)
        #expect(AutostartEntry.quoted("a\nb") == nil)
    }
}
