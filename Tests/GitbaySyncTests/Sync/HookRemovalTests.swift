import Foundation
import GitbayFake
import ReconcileSupport
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The user's pre-remove hook as the removal's step, driven through `AccountRemoval`.
@Suite("The pre-remove hook in a removal")
struct HookRemovalTests {
    @Test("the user's hook runs with the account in its environment and never the token")
    func hookEnvironment() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let apiToken = server.mintToken(for: "alice")
        let alice = try await world.registeredAlice(on: server, apiToken: apiToken)
        let dump = world.folder.path + "/hook-env"
        let hook = try world.installHook("env > '\(dump)'")
        guard case .removed = try await world.remove(alice, removal: world.removal(hookPath: hook)) else {
            Issue.record("a hook that passes lets the removal complete")
            return
        }
        let environment = try String(contentsOfFile: dump, encoding: .utf8)
        #expect(environment.contains("GITBAY_SYNC_ACCOUNT=\(alice.name)"))
        #expect(environment.contains("GITBAY_SYNC_INSTANCE=\(server.baseURL)"))
        #expect(environment.contains("GITBAY_SYNC_USER=alice"))
        #expect(!environment.contains(apiToken))
        #expect(!environment.contains(ReconcileWorld.token))
    }

    #if os(Linux)
    @Test("the hook gets only its standard streams: a descriptor this process holds open does not reach it")
    func hookDescriptors() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.registeredAlice(on: server)
        // A descriptor open in this process without close-on-exec, as a library might leave one.
        let opened = open("/dev/null", O_RDONLY)
        let held = fcntl(opened, F_DUPFD, 300)
        close(opened)
        defer { close(held) }
        #expect(held >= 300)
        let seen = world.folder.path + "/hook-fds"
        let hook = try world.installHook(
            "if [ -e /proc/$$/fd/\(held) ]; then echo open > '\(seen)'; else echo closed > '\(seen)'; fi; "
                + "[ -e /proc/$$/fd/1 ] && echo stdout >> '\(seen)'")
        guard case .removed = try await world.remove(alice, removal: world.removal(hookPath: hook)) else {
            Issue.record("a hook that passes lets the removal complete")
            return
        }
        #expect(try String(contentsOfFile: seen, encoding: .utf8) == "closed\nstdout\n")
    }
    #endif

    @Test("a failing hook stops the removal with its message, the deregistration standing; --force overrides it")
    func failingHook() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.registeredAlice(on: server)
        let hook = try world.installHook("echo 'backup first' >&2; exit 3")
        guard case .kept(_, .stepFailed(let reason)) = try await world.remove(alice, removal: world.removal(hookPath: hook)) else {
            Issue.record("a failing hook keeps the account")
            return
        }
        #expect(reason.contains("exited with status 3"))
        #expect(reason.contains("backup first"))
        #expect(server.devices(of: "alice").isEmpty)
        #expect(try await world.store.apiToken(ofAccount: alice.id) != nil)
        #expect(try await world.store.status(ofAccount: alice.id).detail == AccountRemoval.hookFailedDetail)
        guard case .forced(_, _, let hold, _, _) = try await world.remove(alice, force: true, removal: world.removal(hookPath: hook))
        else {
            Issue.record("--force overrides a failing hook")
            return
        }
        #expect(hold.deregistered)
        #expect(try await world.store.account(id: alice.id) == nil)
    }

    @Test("a hook that runs past its timeout is killed and stops the removal")
    func hookTimeout() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.signIn(server, "alice")
        let hook = try world.installHook("sleep 30")
        let result = try await world.remove(alice, removal: world.removal(hookPath: hook, hookTimeout: .milliseconds(300)))
        guard case .kept(_, .stepFailed(let reason)) = result else {
            Issue.record("a hook past its timeout keeps the account, not \(result)")
            return
        }
        #expect(reason.contains("killed after its timeout"))
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
    }

    @Test("no hook starts once a stop was requested, and --force does not override the stop")
    func noHookAfterStop() async throws {
        let server = try FakeGitbayServer()
        let world = try await ReconcileWorld()
        let alice = try await world.registeredAlice(on: server)
        let ran = world.folder.path + "/ran"
        let hook = try world.installHook("touch '\(ran)'")
        let shutdown = ShutdownSignal()
        shutdown.claim()
        shutdown.request()
        let result = try await world.remove(alice, force: true, removal: world.removal(hookPath: hook, shutdown: shutdown))
        guard case .interrupted(let outcome, let reason) = result else {
            Issue.record("a stop before the hook interrupts the removal, not \(result)")
            return
        }
        #expect(reason == "interrupted before the pre-remove hook \(hook) ran")
        #expect(outcome.condition == .removing)
        #expect(!FileManager.default.fileExists(atPath: ran))
        #expect(try await world.store.account(id: alice.id)?.state == .removing)
        #expect(try await world.store.apiToken(ofAccount: alice.id) != nil)
        #expect(try await world.store.status(ofAccount: alice.id).detail == AccountRemoval.interruptedDetail)
    }
}
