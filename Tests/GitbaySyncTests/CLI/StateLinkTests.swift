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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// No path around the state database is followed through a link, and no folder is created in
/// another user's.
@Suite("Links and other users' folders around the state database")
struct StateLinkTests {
    static let deviceToken = "c0ffee00aaaabbbbccccdddd"

    /// Commands that open the database, each of which must refuse and change nothing.
    static let commands: [([String], String?)] = [
        (["status"], nil), (["accounts"], nil), (["device", "set-token"], "feedface11112222"), (["run"], nil),
    ]

    /// Runs every command of `commands`: each exits 74 naming `link` as a link, prints nothing
    /// on stdout and changes nothing in the test's folder; then doctor fails its permissions
    /// check naming the link.
    static func expectRefused(_ cli: CLIHarness, link: String) async throws {
        let before = folderSnapshot(cli.folder.path)
        for (arguments, stdin) in commands {
            let result = await cli.run(arguments, stdin: stdin)
            #expect(result.code == ExitCode.stateError.rawValue, "\(arguments): \(result.err)")
            #expect(result.err.hasPrefix("Error: \(link) is a symbolic link"), "\(arguments): \(result.err)")
            #expect(result.err.contains("rm \(link)"), "\(arguments): \(result.err)")
            #expect(result.out.isEmpty)
            #expect(folderSnapshot(cli.folder.path) == before, "\(arguments) changed nothing")
        }
        let doctor = await cli.run(["doctor", "--json"])
        #expect(doctor.code == ExitCode.partialFailure.rawValue)
        let permissions = try #require(try DoctorTests.checks(doctor)["database.permissions \(cli.databasePath)"], "\(doctor.out)")
        #expect(permissions["ok"] as? Bool == false)
        #expect((permissions["detail"] as? String)?.contains("\(link) is a symbolic link") == true, "\(permissions)")
        #expect((permissions["fix"] as? String)?.contains("rm \(link)") == true, "\(permissions)")
        #expect(folderSnapshot(cli.folder.path) == before, "doctor changed nothing")
    }

    @Test(
        "a state.db-shm planted as a link to a root-owned 0644 file is refused with exit 74; the file keeps its mode and bytes",
        arguments: [true, false])
    func plantedSharedMemoryLink(databaseFirst: Bool) async throws {
        let cli = try CLIHarness()
        if databaseFirst {
            #expect(await cli.run(["device", "set-token"], stdin: Self.deviceToken).code == 0)
        } else {
            // Planted before the first command, in the folder it would use.
            try FileManager.default.createDirectory(
                atPath: StateLocation(databasePath: cli.databasePath).directory, withIntermediateDirectories: true)
        }
        let shm = cli.databasePath + "-shm"
        unlink(shm)
        // A file no one but root may change, readable by all.
        let victim = cli.folder.file("system-file")
        #expect(FileManager.default.createFile(atPath: victim, contents: Data("keep me\n".utf8), attributes: [.posixPermissions: 0o644]))
        if geteuid() == 0 { #expect(chown(victim, 0, 0) == 0) }
        #expect(symlink(victim, shm) == 0)
        // Planted by another user, in a folder they can write.
        if geteuid() == 0 { #expect(lchown(shm, 65534, 65534) == 0) }

        if databaseFirst {
            try await Self.expectRefused(cli, link: shm)
        } else {
            let before = folderSnapshot(cli.folder.path)
            let result = await cli.run(["device", "set-token"], stdin: Self.deviceToken)
            #expect(result.code == ExitCode.stateError.rawValue, "\(result.err)")
            #expect(result.err.hasPrefix("Error: \(shm) is a symbolic link"), "\(result.err)")
            #expect(folderSnapshot(cli.folder.path) == before, "nothing was created")
        }
        #expect(modeBits(victim) == 0o644, "the link's target was chmodded")
        #expect(fileBytes(victim) == Data("keep me\n".utf8), "the link's target was written")
    }

    /// Which path around the database is a link.
    struct Linked: Sendable, CustomTestStringConvertible {
        enum Place: Sendable { case database, writeAheadLog, folder }
        let place: Place
        var testDescription: String {
            switch place {
            case .database: "the database"
            case .writeAheadLog: "its -wal file"
            case .folder: "its folder"
            }
        }
    }

    @Test(
        "a database, -wal file or folder that is a link is refused with exit 74 and the fix, and nothing changes",
        arguments: [Linked(place: .database), Linked(place: .writeAheadLog), Linked(place: .folder)])
    func linkRefused(_ linked: Linked) async throws {
        let cli = try CLIHarness()
        // A real database elsewhere, which the link leads to.
        let real = cli.folder.file("real")
        #expect(await cli.run(["device", "set-token", "--db", real + "/state.db"], stdin: Self.deviceToken).code == 0)
        let folder = StateLocation(databasePath: cli.databasePath).directory
        let link: String
        switch linked.place {
        case .database:
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            link = cli.databasePath
            #expect(symlink(real + "/state.db", link) == 0)
        case .writeAheadLog:
            #expect(await cli.run(["device", "set-token"], stdin: Self.deviceToken).code == 0)
            link = cli.databasePath + "-wal"
            unlink(link)
            let target = cli.folder.file("elsewhere")
            #expect(FileManager.default.createFile(atPath: target, contents: nil, attributes: [.posixPermissions: 0o600]))
            #expect(symlink(target, link) == 0)
        case .folder:
            try FileManager.default.createDirectory(atPath: StateLocation.parent(of: folder), withIntermediateDirectories: true)
            link = folder
            #expect(symlink(real, link) == 0)
        }
        try await Self.expectRefused(cli, link: link)
    }

    @Test(
        "HOME of another user's (as with sudo -E): no folder is created there, the command exits 74 and says to use sudo -H or --db",
        .enabled(if: geteuid() == 0, "only root can hand a folder to another user"))
    func foreignHome() async throws {
        let cli = try CLIHarness { folder in ["HOME": folder + "/alice", "PATH": "/usr/bin:/bin"] }
        let home = cli.folder.file("alice")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        #expect(chmod(home, 0o755) == 0)
        #expect(chown(home, 65534, 65534) == 0)
        let before = folderSnapshot(cli.folder.path)

        let result = await cli.run(["device", "set-token"], stdin: Self.deviceToken)
        #expect(result.code == ExitCode.stateError.rawValue, "\(result.err)")
        #expect(
            result.err.hasPrefix("Error: cannot create \(home)/.local/state/gitbay-sync: \(home) belongs to user id 65534, not to you"),
            "\(result.err)")
        #expect(result.err.contains("sudo -H"), "\(result.err)")
        #expect(result.err.contains("--db"), "\(result.err)")
        #expect(folderSnapshot(cli.folder.path) == before, "nothing was created")
        #expect(!FileManager.default.fileExists(atPath: home + "/.local"))
    }

    @Test("HOME of your own: the missing ~/.local/state/gitbay-sync is created, 0700")
    func ownHome() async throws {
        let cli = try CLIHarness { folder in ["HOME": folder + "/me", "PATH": "/usr/bin:/bin"] }
        let home = cli.folder.file("me")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        let result = await cli.run(["device", "set-token"], stdin: Self.deviceToken)
        #expect(result.code == 0, "\(result.err)")
        for folder in [".local", ".local/state", ".local/state/gitbay-sync"] {
            #expect(modeBits(home + "/" + folder) == 0o700, "\(folder)")
        }
        #expect(modeBits(home + "/.local/state/gitbay-sync/state.db") == 0o600)
    }
}
