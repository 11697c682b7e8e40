import Foundation
import GitbayFake
import ReconcileSupport
import TestSupport
import Testing

@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pre-remove hook that another user owns or can change is refused, never run.
@Suite("Which pre-remove hooks are run")
struct HookTrustTests {
    /// Where a test's hook and its folder are, and the file it writes when it runs.
    struct Layout {
        let folder: String
        var hooks: String { folder + "/hooks" }
        var hook: String { hooks + "/pre-remove" }
        var ran: String { folder + "/ran" }

        /// Writes the hook (0755, in a 0755 folder of its own), which notes that it ran.
        func install(at path: String? = nil) throws -> String {
            try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
            chmod(hooks, 0o755)
            let file = path ?? hook
            try "#!/bin/sh\ntouch '\(ran)'\n".write(toFile: file, atomically: true, encoding: .utf8)
            chmod(file, 0o755)
            return file
        }
    }

    /// Something wrong with the hook or its folder, and what the refusal must say.
    struct Unsafe: Sendable, CustomTestStringConvertible {
        let name: String
        /// Makes the problem; returns the path the message must name.
        let make: @Sendable (Layout) throws -> String
        /// What the message must say after the path, and the fix it must give.
        let problem: String
        let fix: String
        var testDescription: String { name }
    }

    static let nobody: uid_t = 65534

    /// Modes anyone can set on their own files.
    static let loose = [
        Unsafe(
            name: "a hook anyone can write (0777)",
            make: { layout in
                let hook = try layout.install()
                chmod(hook, 0o777)
                return hook
            }, problem: "can be written by other users (mode 777)", fix: "chmod go-w"),
        Unsafe(
            name: "a hook its group can write (0775)",
            make: { layout in
                let hook = try layout.install()
                chmod(hook, 0o775)
                return hook
            }, problem: "can be written by other users (mode 775)", fix: "chmod go-w"),
        Unsafe(
            name: "a hook in a folder anyone can write (0777)",
            make: { layout in
                _ = try layout.install()
                chmod(layout.hooks, 0o777)
                return layout.hooks
            }, problem: "can be written by other users (mode 777)", fix: "chmod go-w"),
        Unsafe(
            name: "a link of yours to a hook anyone can write",
            make: { layout in
                let target = try layout.install(at: layout.folder + "/elsewhere")
                chmod(target, 0o777)
                symlink(target, layout.hook)
                return target
            }, problem: "can be written by other users (mode 777)", fix: "chmod go-w"),
    ]

    /// Files of another user: only root can make them here.
    static let foreign = [
        Unsafe(
            name: "a hook another user owns",
            make: { layout in
                let hook = try layout.install()
                chown(hook, nobody, nobody)
                return hook
            }, problem: "belongs to user id 65534", fix: "chown"),
        Unsafe(
            name: "a hook in a folder another user owns",
            make: { layout in
                _ = try layout.install()
                chown(layout.hooks, nobody, nobody)
                return layout.hooks
            }, problem: "belongs to user id 65534", fix: "chown"),
        Unsafe(
            name: "a link another user made, to a hook of yours",
            make: { layout in
                let target = try layout.install(at: layout.hooks + "/mine")
                symlink(target, layout.hook)
                lchown(layout.hook, nobody, nobody)
                return layout.hook
            }, problem: "belongs to user id 65534", fix: "chown"),
    ]

    @Test("a hook that others can change is refused, naming the path, the problem and the fix; it does not run", arguments: loose)
    func looseRefused(_ example: Unsafe) async throws {
        try await Self.expectRefused(example)
    }

    @Test(
        "a hook of another user's is refused, naming the path, the problem and the fix; it does not run",
        .enabled(if: geteuid() == 0, "only root can hand a file to another user"), arguments: foreign)
    func foreignRefused(_ example: Unsafe) async throws {
        try await Self.expectRefused(example)
    }

    /// Removes a registered account with the hook `example` makes: the removal is kept, the
    /// deregistration stands, and the hook never ran.
    static func expectRefused(_ example: Unsafe) async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.registeredAlice(on: server)
        let layout = Layout(folder: world.folder.path)
        let named = try example.make(layout)

        let result = try await world.remove(alice, removal: world.removal(hookPath: layout.hook))
        guard case .kept(_, .stepFailed(let reason)) = result else {
            Issue.record("an unsafe hook keeps the account, not \(result)")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: layout.ran), "the refused hook ran")
        #expect(reason.contains("the pre-remove hook \(layout.hook) was not run"), "\(reason)")
        #expect(reason.contains("\(named) \(example.problem)"), "\(reason)")
        #expect(reason.contains(example.fix), "\(reason)")
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
        #expect(try await world.store.apiToken(ofAccount: alice.id) != nil)
        #expect(try await world.store.status(ofAccount: alice.id).detail == AccountRemoval.hookFailedDetail)
    }

    @Test("a link of yours to a hook of yours runs, as a dotfiles manager's link does")
    func ownLinkRuns() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.registeredAlice(on: server)
        let layout = Layout(folder: world.folder.path)
        let target = try layout.install(at: world.folder.path + "/dotfiles-hook")
        #expect(symlink(target, layout.hook) == 0)
        guard case .removed = try await world.remove(alice, removal: world.removal(hookPath: layout.hook)) else {
            Issue.record("a safe linked hook lets the removal complete")
            return
        }
        #expect(FileManager.default.fileExists(atPath: layout.ran))
    }
}
