import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// A state folder copied to another machine (rsync, a migration, a restored backup): the copy
/// is a new install there, so each machine keeps its own row and neither removes the other's.
@Suite("A home copied to another machine")
struct CopiedHomeTests {
    static let firstToken = "aaaa1111bbbb2222cccc3333dddd4444"
    static let secondToken = "eeee5555ffff6666aaaa7777bbbb8888"

    /// One machine: a command line whose install is bound to `name`.
    struct Machine {
        let cli: CLIHarness
        let identity: MachineIdentity

        init(_ name: String) throws {
            cli = try CLIHarness()
            identity = MachineIdentity(identity: name)
        }

        func run(_ arguments: [String], stdin: String? = nil) async -> CLIResult {
            await cli.run(arguments, stdin: stdin) { [identity] in $0.machine = { identity } }
        }

        /// Puts a copy of `other`'s state database where this machine's commands look.
        func copyState(of other: Machine) throws {
            let target = cli.databasePath
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: other.cli.databasePath + suffix) {
                try FileManager.default.copyItem(atPath: other.cli.databasePath + suffix, toPath: target + suffix)
            }
        }
    }

    @Test("the copy is a new install: both machines settle with a row each, the first machine's is never removed, and a pair of runs writes nothing")
    func bothMachinesSettle() async throws {
        let server = try FakeGitbayServer()
        let first = try Machine("3d1219c7c4c5404aaa1f6d2a48adfd01")
        #expect(await first.run(["login", server.baseURL], stdin: server.mintToken(for: "alice")).code == 0)
        #expect(await first.run(["device", "set-token"], stdin: Self.firstToken).code == 0)
        #expect(await first.run(["run"]).code == 0)
        let firstRow = try #require(server.devices(of: "alice").first)

        let second = try Machine("9f00c0ffee00c0ffee00c0ffee00c002")
        try second.copyState(of: first)
        let told = await second.run(["status"])
        #expect(told.err.contains("made on another machine"), "\(told.err)")
        #expect(told.out.contains("new on this machine"), "\(told.out)")
        #expect(await second.run(["status"]).err.isEmpty, "said once")
        let device = await second.run(["device", "show", "--json"])
        #expect(!device.out.contains(String(Self.firstToken.prefix(8))), "the first machine's device token came along: \(device.out)")

        #expect(await second.run(["device", "set-token"], stdin: Self.secondToken).code == 0)
        let secondRun = await second.run(["run", "--json"])
        #expect(secondRun.code == 0, "\(secondRun.err)")
        let rows = server.devices(of: "alice")
        #expect(rows.contains { $0.id == firstRow.id && $0.token == Self.firstToken }, "the second machine removed the first one's row")
        #expect(rows.contains { $0.token == Self.secondToken })
        #expect(rows.count == 2)
        #expect(server.deletions().isEmpty)

        for machine in [first, second, first, second] {
            server.resetRequests()
            #expect(await machine.run(["run"]).code == 0)
            let writes = server.requests().filter(\.isWrite).map(\.argv)
            #expect(writes.isEmpty, "\(writes)")
        }
        #expect(server.devices(of: "alice").count == 2)
        let doctor = await second.run(["doctor", "--json"])
        #expect(doctor.out.contains("bound to this machine since"), "\(doctor.out)")
    }

    @Test("a database made before machines were recorded is bound to the first machine that opens it, without a word")
    func legacyDatabaseIsBound() async throws {
        let folder = try TemporaryDirectory()
        let location = StateLocation(databasePath: folder.databasePath)
        let legacy = try await StateStore.open(location)
        let marker = try await legacy.device().installMarker
        #expect(try await legacy.device().machine == nil)
        let here = MachineIdentity(identity: "0123456789abcdef0123456789abcdef")
        let bound = try await StateStore.open(location, machine: here)
        #expect(!bound.movedHere)
        #expect(try await bound.device().machine == here.hash)
        #expect(try await bound.device().installMarker == marker)
        let elsewhere = try await StateStore.open(location, machine: MachineIdentity(identity: "fedcba9876543210fedcba9876543210"))
        #expect(elsewhere.movedHere)
        #expect(try await elsewhere.device().installMarker != marker)
        // No identity to compare: nothing is bound or checked.
        #expect(!(try await StateStore.open(location, machine: nil)).movedHere)
    }

    @Test("only a hash of the machine id is stored, never the id itself")
    func onlyTheHash() async throws {
        let machine = try Machine("5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a")
        #expect(await machine.run(["device", "set-token"], stdin: Self.firstToken).code == 0)
        let bytes = try #require(fileBytes(machine.cli.databasePath))
        #expect(bytes.range(of: Data("5a5a5a5a5a5a5a5a".utf8)) == nil)
        #expect(bytes.range(of: Data(machine.identity.hash.utf8)) != nil)
    }
}

/// The same with the built binary and the machine id as the operating system keeps it: the
/// second machine is this one with another `/etc/machine-id` bound over it in a mount
/// namespace of its own.
@Suite("A home copied to another machine, through /etc/machine-id")
struct MachineIDFileTests {
    @Test("the built binary reads /etc/machine-id: under another id the database is a new install, and the first machine's row stays")
    func anotherMachineID() async throws {
        let folder = try TemporaryDirectory()
        let server = try FakeGitbayServer()
        let binary = try BuiltBinary.located(in: folder)
        #expect(try await binary.run(["login", server.baseURL], stdin: server.mintToken(for: "alice")).code == 0)
        #expect(try await binary.run(["device", "set-token"], stdin: CopiedHomeTests.firstToken).code == 0)
        #expect(try await binary.run(["run"]).code == 0)
        let firstRow = try #require(server.devices(of: "alice").first)

        let otherID = folder.file("machine-id")
        try "0badc0de0badc0de0badc0de0badc0de\n".write(toFile: otherID, atomically: true, encoding: .utf8)
        let elsewhere = ["/usr/bin/unshare", "--mount", "/bin/sh", "-c", "mount --bind \"$0\" /etc/machine-id && exec \"$@\"", otherID]
        func onOtherMachine(_ arguments: [String], stdin: String? = nil) async throws -> CLIResult {
            try await binary.run(arguments, stdin: stdin, launcher: elsewhere)
        }
        let setToken = try await onOtherMachine(["device", "set-token"], stdin: CopiedHomeTests.secondToken)
        #expect(setToken.code == 0, "\(setToken.err)")
        #expect(setToken.err.contains("made on another machine"), "\(setToken.err)")
        #expect(try await onOtherMachine(["run"]).code == 0)
        #expect(server.devices(of: "alice").contains { $0.id == firstRow.id })
        #expect(server.devices(of: "alice").count == 2)
        #expect(server.deletions().isEmpty)
    }
}
