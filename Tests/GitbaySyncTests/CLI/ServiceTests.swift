import Foundation
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

@Suite("service install, uninstall, show")
struct ServiceTests {
    static let executable = "/opt/gitbay sync/bin/gitbay-sync"

    static let expectedService = #"""
        # Written by `gitbay-sync service install`; `gitbay-sync service uninstall` removes it.
        [Unit]
        Description=Keep this device's gitbay push registration true
        # After a failed run: a template unit of yours, if you write one (none is only logged).
        OnFailure=gitbay-sync-failure@%n.service

        [Service]
        Type=oneshot
        # The installing shell's config folder: the pre-remove hook is in gitbay-sync/hooks/ there.
        Environment="XDG_CONFIG_HOME=/home/a b/$conf 50%%"
        # Exits 1 when an account failed: the journal names it, and a later run retries it.
        # Accounts waiting out a backoff are left alone; a missing database exits 66.
        ExecStart="/opt/gitbay sync/bin/gitbay-sync" "run" "--unattended" "--db" "/home/a b/100%% \"$$HOME\"\\state.db"

        [Install]
        # Runs once at login; gitbay-sync.timer runs it again every period.
        WantedBy=default.target

        """#

    static let expectedTimer = """
        # Written by `gitbay-sync service install`; `gitbay-sync service uninstall` removes it.
        [Unit]
        Description=Run gitbay-sync every 1h30m

        [Timer]
        OnActiveSec=1h30m
        OnUnitActiveSec=1h30m
        RandomizedDelaySec=9m
        AccuracySec=1m
        Unit=gitbay-sync.service

        [Install]
        WantedBy=timers.target

        """

    static let expectedPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <!-- Written by `gitbay-sync service install`; `gitbay-sync service uninstall` removes it. -->
        <plist version="1.0">
        <dict>
        \t<key>Label</key>
        \t<string>org.gitbay.gitbay-sync</string>
        \t<key>ProgramArguments</key>
        \t<array>
        \t\t<string>/opt/gitbay sync/bin/gitbay-sync</string>
        \t\t<string>run</string>
        \t\t<string>--unattended</string>
        \t\t<string>--db</string>
        \t\t<string>/Users/a&amp;b/&lt;state&gt;.db</string>
        \t</array>
        \t<key>EnvironmentVariables</key>
        \t<dict>
        \t\t<key>XDG_CONFIG_HOME</key>
        \t\t<string>/Users/a&amp;b/.config</string>
        \t</dict>
        \t<key>RunAtLoad</key>
        \t<true/>
        \t<key>StartInterval</key>
        \t<integer>900</integer>
        \t<key>ProcessType</key>
        \t<string>Background</string>
        \t<key>StandardErrorPath</key>
        \t<string>/Users/a&amp;b/Library/Logs/gitbay-sync.log</string>
        </dict>
        </plist>

        """

    @Test(
        "systemd units: a one-shot service at login running `run --unattended` with the database and config folder, and a timer with a tenth of jitter, paths quoted"
    )
    func systemdGolden() {
        let units = ServiceUnits(
            platform: .systemd, executable: Self.executable, databasePath: #"/home/a b/100% "$HOME"\state.db"#,
            configHome: "/home/a b/$conf 50%", interval: .seconds(5400), logPath: "unused"
        )
        #expect(units.files.map(\.name) == ["gitbay-sync.service", "gitbay-sync.timer"])
        #expect(units.files[0].contents == Self.expectedService)
        #expect(units.files[1].contents == Self.expectedTimer)
    }

    @Test("launchd agent: RunAtLoad, StartInterval, arguments and XDG_CONFIG_HOME as XML text")
    func launchdGolden() {
        let units = ServiceUnits(
            platform: .launchd, executable: Self.executable, databasePath: "/Users/a&b/<state>.db",
            configHome: "/Users/a&b/.config", interval: .seconds(900), logPath: "/Users/a&b/Library/Logs/gitbay-sync.log"
        )
        #expect(units.files.map(\.name) == ["org.gitbay.gitbay-sync.plist"])
        #expect(units.files[0].contents == Self.expectedPlist)
    }

    struct Quoting: Sendable, CustomStringConvertible {
        let word: String
        let quoted: String
        var description: String { word.debugDescription }
    }

    @Test(
        "one systemd command-line word, whatever it holds",
        arguments: [
            Quoting(word: "/usr/bin/gitbay-sync", quoted: #""/usr/bin/gitbay-sync""#),
            Quoting(word: "a b", quoted: #""a b""#),
            Quoting(word: #"say "hi""#, quoted: #""say \"hi\"""#),
            Quoting(word: #"back\slash"#, quoted: #""back\\slash""#),
            Quoting(word: "%h/x", quoted: #""%%h/x""#),
            Quoting(word: "$HOME", quoted: #""$$HOME""#),
            Quoting(word: "tab\there", quoted: #""tab\there""#),
            Quoting(word: "bell\u{07}", quoted: #""bell\x07""#),
            Quoting(word: "it's", quoted: #""it's""#),
        ])
    func quoting(_ example: Quoting) {
        #expect(ServiceUnits.systemdQuoted(example.word) == example.quoted)
    }

    @Test("the program's path keeps its dollar signs: systemd expands no variables there")
    func programQuoting() {
        #expect(ServiceUnits.systemdQuoted("/opt/$x/100%/gitbay-sync", program: true) == #""/opt/$x/100%%/gitbay-sync""#)
    }

    /// A harness whose executable path is fixed.
    static func run(_ cli: CLIHarness, _ arguments: [String], executable: String = executable) async -> CLIResult {
        await cli.run(arguments) { $0.executablePath = { executable } }
    }

    var unitFolder: (CLIHarness) -> String { { $0.folder.path + "/config/systemd/user" } }

    @Test("show prints what install writes and writes nothing; install writes it; uninstall removes it")
    func installCycle() async throws {
        let cli = try CLIHarness()
        let folder = unitFolder(cli)
        let shown = await Self.run(cli, ["service", "show", "--every", "1h30m", "--db", "/srv/x.db", "--json"])
        #expect(shown.code == 0)
        #expect(!FileManager.default.fileExists(atPath: folder))
        let json = try shown.json()
        #expect(json["platform"] as? String == "systemd")
        let files = try #require(json["files"] as? [[String: String]])
        #expect(files.map { $0["path"] } == [folder + "/gitbay-sync.service", folder + "/gitbay-sync.timer"])

        let installed = await Self.run(cli, ["service", "install", "--every", "1h30m", "--db", "/srv/x.db"])
        #expect(installed.code == 0, "\(installed.err)")
        #expect(installed.out.contains("Wrote \(folder)/gitbay-sync.timer"))
        #expect(installed.out.contains("systemctl --user daemon-reload && systemctl --user enable --now gitbay-sync.timer gitbay-sync.service"))
        for file in files {
            #expect(String(decoding: try #require(fileBytes(file["path"]!)), as: UTF8.self) == file["contents"])
            #expect(fileMode(file["path"]!) == 0o644)
        }
        #expect(files[0]["contents"]?.contains(#"ExecStart="/opt/gitbay sync/bin/gitbay-sync" "run" "--unattended" "--db" "/srv/x.db""#) == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["gitbay-sync.service", "gitbay-sync.timer"])

        // What `systemctl --user enable` leaves behind goes too.
        try FileManager.default.createDirectory(atPath: folder + "/timers.target.wants", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/timers.target.wants/gitbay-sync.timer", withDestinationPath: folder + "/gitbay-sync.timer")
        let removed = await Self.run(cli, ["service", "uninstall", "--json"])
        #expect(removed.code == 0)
        #expect(
            try removed.json()["removed"] as? [String] == [
                folder + "/gitbay-sync.service", folder + "/timers.target.wants/gitbay-sync.timer", folder + "/gitbay-sync.timer",
            ])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["timers.target.wants"])
        let again = await Self.run(cli, ["service", "uninstall"])
        #expect(again.code == 0)
        #expect(again.out.contains("Nothing to remove"))
    }

    @Test("a relative --db becomes absolute in the units")
    func relativeDatabase() async throws {
        let cli = try CLIHarness()
        let shown = await Self.run(cli, ["service", "show", "--db", "some/state.db"])
        let absolute = FileManager.default.currentDirectoryPath + "/some/state.db"
        #expect(shown.out.contains(#""--db" "\#(absolute)""#))
    }

    @Test("an unwritable unit folder is a clear error and nothing is written")
    func unwritableFolder() async throws {
        let cli = try CLIHarness()
        // A file where the `user` folder should be: no one can write into it, root included.
        try FileManager.default.createDirectory(atPath: cli.folder.path + "/config/systemd", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: unitFolder(cli), contents: Data("x".utf8)))
        let result = await Self.run(cli, ["service", "install"])
        #expect(result.code == 74)
        #expect(result.err.contains("Error: cannot write \(unitFolder(cli)) (not a folder); nothing was written"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.folder.path + "/config/systemd") == ["user"])
        #expect(fileBytes(unitFolder(cli)) == Data("x".utf8))
    }

    @Test("a read-only unit folder is a clear error and leaves no file behind", .enabled(if: geteuid() != 0, "root writes anywhere"))
    func readOnlyFolder() async throws {
        let cli = try CLIHarness()
        let folder = unitFolder(cli)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o500)
        defer { chmod(folder, 0o700) }
        let result = await Self.run(cli, ["service", "install"])
        #expect(result.code == 74)
        #expect(result.err.contains("nothing was written"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    static let handWritten = """
        [Unit]
        Description=My own gitbay-sync

        [Service]
        ExecStart=/usr/local/bin/gitbay-sync run --every 5m

        """

    @Test("install refuses to replace a hand-written unit of the same name: exit 78, nothing written; --force replaces it")
    func installRefusesHandWritten() async throws {
        let cli = try CLIHarness()
        let folder = unitFolder(cli)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: folder + "/gitbay-sync.service", contents: Data(Self.handWritten.utf8)))
        let before = folderSnapshot(folder)

        let refused = await Self.run(cli, ["service", "install"])
        #expect(refused.code == ExitCode.foreignFile.rawValue)
        #expect(refused.out.isEmpty)
        #expect(refused.err.contains("Error: \(folder)/gitbay-sync.service was not written by `gitbay-sync service install`"), "\(refused.err)")
        #expect(refused.err.contains("nothing was written"))
        #expect(refused.err.contains("`gitbay-sync service install --force`"))
        #expect(folderSnapshot(folder) == before, "the hand-written unit is untouched and no timer was written")

        let forced = await Self.run(cli, ["service", "install", "--force"])
        #expect(forced.code == 0, "\(forced.err)")
        #expect(fileBytes(folder + "/gitbay-sync.service").map { ServiceUnits.isGenerated(String(decoding: $0, as: UTF8.self)) } == true)
        // What install wrote itself it replaces without --force.
        #expect(await Self.run(cli, ["service", "install", "--every", "1h"]).code == 0)
    }

    @Test("uninstall refuses to remove a hand-written unit of the same name: exit 78, nothing removed; --force removes it")
    func uninstallRefusesHandWritten() async throws {
        let cli = try CLIHarness()
        let folder = unitFolder(cli)
        #expect(await Self.run(cli, ["service", "install"]).code == 0)
        // The timer was replaced by hand, and both were enabled.
        #expect(FileManager.default.createFile(atPath: folder + "/gitbay-sync.timer", contents: Data("[Timer]\nOnCalendar=hourly\n".utf8)))
        for (target, name) in [("default.target", "gitbay-sync.service"), ("timers.target", "gitbay-sync.timer")] {
            try FileManager.default.createDirectory(atPath: folder + "/\(target).wants", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: folder + "/\(target).wants/\(name)", withDestinationPath: folder + "/" + name)
        }
        let before = folderSnapshot(folder)

        let refused = await Self.run(cli, ["service", "uninstall"])
        #expect(refused.code == ExitCode.foreignFile.rawValue)
        #expect(refused.err.contains("\(folder)/gitbay-sync.timer was not written by `gitbay-sync service install`"), "\(refused.err)")
        #expect(refused.err.contains("nothing was removed"))
        #expect(refused.err.contains("`gitbay-sync service uninstall --force`"))
        #expect(folderSnapshot(folder) == before)

        let forced = await Self.run(cli, ["service", "uninstall", "--force", "--json"])
        #expect(forced.code == 0, "\(forced.err)")
        #expect((try forced.json()["removed"] as? [String])?.count == 4)
    }

    @Test(
        "the units name the database and config folder the shell resolves, absolutely, whatever the shell gives",
        arguments: [
            ["XDG_STATE_HOME": "/x/state"], ["GITBAY_SYNC_DB": "/y/s.db"], ["XDG_CONFIG_HOME": "/z/conf"], [:],
        ])
    func resolvedPaths(_ variables: [String: String]) async throws {
        let cli = try CLIHarness { folder in ["HOME": folder + "/home", "PATH": "/usr/bin:/bin"].merging(variables) { $1 } }
        let shown = await Self.run(cli, ["service", "show"])
        #expect(shown.code == 0)
        let database =
            variables["GITBAY_SYNC_DB"] ?? (variables["XDG_STATE_HOME"] ?? cli.folder.path + "/home/.local/state") + "/gitbay-sync/state.db"
        let config = variables["XDG_CONFIG_HOME"] ?? cli.folder.path + "/home/.config"
        #expect(shown.out.contains(#""run" "--unattended" "--db" "\#(database)""#), "\(shown.out)")
        #expect(shown.out.contains(#"Environment="XDG_CONFIG_HOME=\#(config)""#), "\(shown.out)")
    }

    @Test(
        "doctor reads back what install wrote: command line, environment and period, awkward paths included",
        arguments: [ServiceUnits.Platform.systemd, .launchd])
    func readBack(_ platform: ServiceUnits.Platform) throws {
        let folder = try TemporaryDirectory()
        let executable = "/opt/a b/100% $x/gitbay-sync"
        let database = #"/home/a "b"/it's\ & <state>.db"#
        let config = "/home/a b/$conf 50% & <x>"
        let units = ServiceUnits(
            platform: platform, executable: executable, databasePath: database, configHome: config, interval: .seconds(5400), logPath: "/l")
        let unitFolder = UnitFolder(path: folder.path)
        try unitFolder.writeAll(units.files)
        let installed = InstalledService.read(platform, folder: unitFolder)
        #expect(installed.isInstalled)
        #expect(installed.units.allSatisfy { $0.isGenerated })
        #expect(installed.arguments == [executable, "run", "--unattended", "--db", database])
        #expect(installed.environment == ["XDG_CONFIG_HOME": config])
        #expect(installed.period == .seconds(5400))
    }

    static let analyzer = "/usr/bin/systemd-analyze"

    @Test(
        "systemd-analyze verify accepts the units, with an awkward path to a real executable",
        .enabled(if: FileManager.default.isExecutableFile(atPath: analyzer), "systemd-analyze is not installed"))
    func systemdVerify() async throws {
        let cli = try CLIHarness()
        let binFolder = cli.folder.path + "/bin 100% $real"
        try FileManager.default.createDirectory(atPath: binFolder, withIntermediateDirectories: true)
        let executable = binFolder + "/gitbay-sync"
        #expect(FileManager.default.createFile(atPath: executable, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        let installed = await Self.run(cli, ["service", "install", "--db", cli.folder.path + "/it's \"here\".db"], executable: executable)
        #expect(installed.code == 0, "\(installed.err)")
        let runtime = cli.folder.path + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])

        let (ending, text) = try ChildProcess.run(
            Self.analyzer,
            ["verify", "--user", "gitbay-sync.service", "gitbay-sync.timer"].map {
                $0.hasPrefix("gitbay") ? unitFolder(cli) + "/" + $0 : $0
            },
            environment: ["XDG_RUNTIME_DIR": runtime, "HOME": cli.folder.path, "PATH": "/usr/bin:/bin", "SYSTEMD_LOG_LEVEL": "warning"],
            output: cli.folder.path + "/analyzer.out")
        #expect(ending.code == 0, "\(text)")
        #expect(text.isEmpty, "\(text)")
    }
}
