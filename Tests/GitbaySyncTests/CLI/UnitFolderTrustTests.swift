import Foundation
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `service install` writes only into a unit folder of the user's own that no one else can
/// write, and creates none inside another user's folder.
@Suite("The unit folder's owner and mode")
struct UnitFolderTrustTests {
    /// What is wrong with the unit folder, and what the refusal must say.
    struct Unsafe: Sendable, CustomTestStringConvertible {
        let name: String
        let mode: Int
        let owner: uid_t?
        let problem: String
        let fix: String
        var testDescription: String { name }
    }

    static let loose = [
        Unsafe(name: "writable by anyone (0777)", mode: 0o777, owner: nil, problem: "can be written by other users (mode 777)", fix: "chmod go-w"),
        Unsafe(name: "writable by its group (0775)", mode: 0o775, owner: nil, problem: "can be written by other users (mode 775)", fix: "chmod go-w"),
    ]

    static let foreign = [
        Unsafe(name: "another user's", mode: 0o755, owner: 65534, problem: "belongs to user id 65534", fix: "chown")
    ]

    static func unitFolder(_ cli: CLIHarness) -> String { cli.folder.path + "/config/systemd/user" }

    /// `service install` into the unsafe folder exits 78, names it and the fix, and writes
    /// nothing; doctor fails `service.units` with the same words.
    static func expectRefused(_ example: Unsafe) async throws {
        let cli = try CLIHarness()
        let folder = unitFolder(cli)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(chmod(folder, mode_t(example.mode)) == 0)
        if let owner = example.owner { #expect(chown(folder, owner, owner) == 0) }
        let before = folderSnapshot(cli.folder.path)

        let result = await ServiceTests.run(cli, ["service", "install"])
        #expect(result.code == ExitCode.foreignFile.rawValue, "\(result.err)")
        #expect(result.err.hasPrefix("Error: \(folder) \(example.problem)"), "\(result.err)")
        #expect(result.err.contains("nothing was written"), "\(result.err)")
        #expect(result.err.contains(example.fix), "\(result.err)")
        #expect(result.out.isEmpty)
        #expect(folderSnapshot(cli.folder.path) == before, "nothing was written")

        let doctor = await ServiceTests.run(cli, ["doctor", "--json"])
        let units = try #require(try DoctorTests.checks(doctor)["service.units \(folder)"], "\(doctor.out)")
        #expect(units["ok"] as? Bool == false)
        #expect((units["detail"] as? String)?.contains("\(folder) \(example.problem)") == true, "\(units)")
        #expect((units["fix"] as? String)?.contains(example.fix) == true, "\(units)")
    }

    @Test("a unit folder others can write is refused by service install (exit 78, nothing written) and failed by doctor", arguments: loose)
    func looseFolder(_ example: Unsafe) async throws {
        try await Self.expectRefused(example)
    }

    @Test(
        "a unit folder of another user's is refused by service install (exit 78, nothing written) and failed by doctor",
        .enabled(if: geteuid() == 0, "only root can hand a folder to another user"), arguments: foreign)
    func foreignFolder(_ example: Unsafe) async throws {
        try await Self.expectRefused(example)
    }

    @Test(
        "a missing unit folder is not created inside another user's folder (as with sudo -E): exit 78, nothing created",
        .enabled(if: geteuid() == 0, "only root can hand a folder to another user"))
    func foreignAncestor() async throws {
        let cli = try CLIHarness { folder in ["HOME": folder + "/alice", "PATH": "/usr/bin:/bin"] }
        let home = cli.folder.file("alice")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        #expect(chmod(home, 0o755) == 0)
        #expect(chown(home, 65534, 65534) == 0)
        let before = folderSnapshot(cli.folder.path)

        let result = await ServiceTests.run(cli, ["service", "install"])
        #expect(result.code == ExitCode.foreignFile.rawValue, "\(result.err)")
        #expect(
            result.err.hasPrefix("Error: cannot create \(home)/.config/systemd/user: \(home) belongs to user id 65534, not to you"),
            "\(result.err)")
        #expect(result.err.contains("sudo -H"), "\(result.err)")
        #expect(result.err.contains("nothing was written"), "\(result.err)")
        #expect(folderSnapshot(cli.folder.path) == before, "nothing was created")
    }
}
