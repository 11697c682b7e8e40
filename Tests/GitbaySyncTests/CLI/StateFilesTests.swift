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

@Suite("State files on disk")
struct StateFilesTests {
    static let deviceToken = "c0ffee00aaaabbbbccccdddd"

    @Test("an existing folder keeps its mode, sticky and setgid bits included, whatever runs in it", arguments: [0o1777, 0o2775])
    func existingFolderKeepsItsMode(_ mode: Int) async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let shared = cli.folder.file("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        #expect(chmod(shared, mode_t(mode)) == 0)
        try #require(modeBits(shared) == mode)
        let database = shared + "/state.db"
        let steps: [([String], String?)] = [
            (["login", server.baseURL], server.mintToken(for: "alice")), (["device", "set-token"], Self.deviceToken),
            (["run"], nil), (["status"], nil), (["accounts"], nil), (["device", "show"], nil), (["devices"], nil),
            (["push", "show"], nil), (["doctor"], nil),
        ]
        for (arguments, stdin) in steps {
            let result = await cli.run(arguments + ["--db", database], stdin: stdin)
            #expect(result.code == 0, "\(arguments): \(result.out) \(result.err)")
            #expect(modeBits(shared) == mode, "after \(arguments)")
        }
        #expect(modeBits(database) == 0o600)
    }

    @Test("the folders gitbay-sync creates are 0700; the database 0600")
    func createdFolders() async throws {
        let cli = try CLIHarness()
        let parent = try #require(modeBits(cli.folder.path))
        let database = cli.folder.file("new/deeper/state.db")
        let result = await cli.run(["device", "set-token", "--db", database], stdin: Self.deviceToken)
        #expect(result.code == 0, "\(result.err)")
        #expect(modeBits(cli.folder.file("new")) == 0o700)
        #expect(modeBits(cli.folder.file("new/deeper")) == 0o700)
        #expect(modeBits(database) == 0o600)
        #expect(modeBits(cli.folder.path) == parent, "a folder that was there is left as it was")
    }

    @Test("a database file made readable by others is tightened to 0600 by the next command")
    func readableDatabaseTightened() async throws {
        let cli = try CLIHarness()
        #expect(await cli.run(["device", "set-token"], stdin: Self.deviceToken).code == 0)
        #expect(chmod(cli.databasePath, 0o644) == 0)
        #expect(await cli.run(["status"]).code == 0)
        #expect(modeBits(cli.databasePath) == 0o600)
    }

    /// A file beside the database that another user can write, or that another user owns.
    struct LooseFile: Sendable, CustomTestStringConvertible {
        enum Change: Sendable { case mode(Int), owner(UInt32) }
        let suffix: String
        let change: Change
        var testDescription: String {
            switch change {
            case .mode(let mode): "state.db\(suffix) with mode \(String(mode, radix: 8))"
            case .owner(let owner): "state.db\(suffix) owned by user id \(owner)"
            }
        }
    }

    @Test(
        "a database, -wal or -shm file that another user can write or owns is refused with the fix, and nothing changes",
        arguments: [
            LooseFile(suffix: "", change: .mode(0o664)), LooseFile(suffix: "", change: .mode(0o602)),
            LooseFile(suffix: "-wal", change: .mode(0o666)), LooseFile(suffix: "-shm", change: .mode(0o620)),
            LooseFile(suffix: "-wal", change: .owner(65534)),
        ])
    func looseFileRefused(_ loose: LooseFile) async throws {
        let cli = try CLIHarness()
        #expect(await cli.run(["device", "set-token"], stdin: Self.deviceToken).code == 0)
        let path = cli.databasePath + loose.suffix
        if !FileManager.default.fileExists(atPath: path) {
            #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]))
        }
        let says: String
        switch loose.change {
        case .mode(let mode):
            #expect(chmod(path, mode_t(mode)) == 0)
            says = "\(path) can be written by other users (mode \(String(mode, radix: 8)))"
        case .owner(let owner):
            guard geteuid() == 0 else { return }  // only root can hand a file to someone else
            #expect(chown(path, owner, owner) == 0)
            says = "\(path) belongs to user id \(owner), not to you"
        }
        let before = folderSnapshot(cli.folder.path)

        for (arguments, stdin) in [(["status"], nil), (["accounts"], nil), (["device", "set-token"], "feedface11112222"), (["run"], nil)]
            as [([String], String?)]
        {
            let result = await cli.run(arguments, stdin: stdin)
            #expect(result.code == ExitCode.stateError.rawValue, "\(arguments): \(result.err)")
            #expect(result.err.hasPrefix("Error: \(says)"), "\(arguments): \(result.err)")
            if case .mode = loose.change {
                #expect(result.err.contains("chmod 600 \(path)"), "\(arguments): \(result.err)")
            }
            #expect(result.out.isEmpty)
            #expect(folderSnapshot(cli.folder.path) == before, "\(arguments) changed nothing")
        }

        let doctor = await cli.run(["doctor", "--json"])
        #expect(doctor.code == ExitCode.partialFailure.rawValue)
        let permissions = try #require(try DoctorTests.checks(doctor)["database.permissions \(cli.databasePath)"])
        #expect(permissions["ok"] as? Bool == false)
        #expect((permissions["detail"] as? String)?.contains(path) == true, "\(permissions)")
        if case .mode = loose.change {
            #expect((permissions["fix"] as? String)?.contains("chmod 600") == true, "\(permissions)")
        }
        #expect(folderSnapshot(cli.folder.path) == before, "doctor changed nothing")
    }

    /// A command that only reads the state database.
    struct ReadOnlyCommand: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        var stdin: String? = nil
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let readOnlyCommands = [
        ReadOnlyCommand(arguments: ["status"]), ReadOnlyCommand(arguments: ["accounts"]),
        ReadOnlyCommand(arguments: ["device", "show"]), ReadOnlyCommand(arguments: ["devices"]),
        ReadOnlyCommand(arguments: ["push", "show"]), ReadOnlyCommand(arguments: ["status", "--json"]),
        ReadOnlyCommand(arguments: ["resolve"], stdin: ResolveCommandTests.payload(instance: "https://gitbay.org", user: "bob")),
        ReadOnlyCommand(arguments: ["doctor"]),
    ]

    @Test(
        "a read-only command with no database exits 66, says how to start, and creates nothing",
        arguments: readOnlyCommands, [true, false])
    func readOnlyCreatesNothing(_ command: ReadOnlyCommand, folderExists: Bool) async throws {
        let cli = try CLIHarness()
        let folder = cli.folder.file(folderExists ? "present" : "missing/deeper")
        if folderExists { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false) }
        let database = folder + "/state.db"
        let before = folderSnapshot(cli.folder.path)

        let result = await cli.run(command.arguments + ["--db", database], stdin: command.stdin)
        if command.arguments == ["doctor"] {
            // doctor reports a missing database as its failed first check, and exits 1 as for any failed check.
            #expect(result.code == ExitCode.partialFailure.rawValue)
            #expect(result.out.hasPrefix("database: \(database)\nFAIL  database: no state database here"), "\(result.out)")
            #expect(result.out.contains("gitbay-sync login <instance-url>"))
        } else {
            let message =
                "no state database at \(database); nothing was created. Sign in with `gitbay-sync login <instance-url>` to start one, or pass the --db you use"
            #expect(result.code == ExitCode.noDatabase.rawValue, "\(result.err)")
            if command.arguments.contains("--json") {
                // Under --json the same error is on stdout as JSON.
                let error = try #require(try result.json()["error"] as? [String: Any])
                #expect(error["message"] as? String == message)
                #expect(error["kind"] as? String == "no-database")
            } else {
                #expect(result.out.isEmpty)
            }
            #expect(result.err == "Error: \(message)")
        }
        #expect(folderSnapshot(cli.folder.path) == before)
    }

    @Test(
        "run never creates a database: with none at the path it exits 66, says how to start, and creates nothing",
        arguments: [["run"], ["run", "--unattended"], ["run", "--now", "--json"], ["run", "--every", "10m"]])
    func runCreatesNothing(_ arguments: [String]) async throws {
        let cli = try CLIHarness()
        let database = cli.folder.file("missing/state.db")
        let before = folderSnapshot(cli.folder.path)
        let result = await cli.run(arguments + ["--db", database]) { context in
            context.sleep = { _ in Issue.record("no cycle may start without a database") }
        }
        #expect(result.code == ExitCode.noDatabase.rawValue, "\(result.err)")
        if arguments.contains("--json") {
            #expect(try result.json()["error"].flatMap { ($0 as? [String: Any])?["kind"] as? String } == "no-database")
        } else {
            #expect(result.out.isEmpty)
        }
        #expect(
            result.err.contains(
                "Error: no state database at \(database); nothing was created. Sign in with `gitbay-sync login <instance-url>` to start one, or pass the --db you use"
            ))
        #expect(folderSnapshot(cli.folder.path) == before)
    }
}
