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

@Suite("Interrupting a removal while the pre-remove hook runs", .timeLimit(.minutes(1)))
struct HookInterruptionTests {
    /// A command that runs the hook, the signal sent while it runs, and the exit it should end with.
    struct Case: Sendable, CustomStringConvertible {
        let arguments: [String]
        /// True when the account is marked `removing` beforehand, for `run` to finish it.
        let removingFirst: Bool
        let signal: Int32
        let signalName: String
        let exitCode: Int32

        var description: String { "\(arguments.joined(separator: " ")) <account>, \(signalName)" }
    }

    static let cases = [
        Case(arguments: ["remove-account"], removingFirst: false, signal: SIGINT, signalName: "SIGINT", exitCode: ExitCode.unavailable.rawValue),
        Case(arguments: ["run"], removingFirst: true, signal: SIGTERM, signalName: "SIGTERM", exitCode: ExitCode.unavailable.rawValue),
        // `run --every` ends a stop on request with 0, an interrupted removal included.
        Case(arguments: ["run", "--every", "10m"], removingFirst: true, signal: SIGINT, signalName: "SIGINT", exitCode: ExitCode.success.rawValue),
    ]

    /// A hook that starts a long child and waits for it; it notes its pid and its child's (last,
    /// once its SIGTERM trap is set) and the SIGTERM it gets. With `ignoringTerm`, both ignore
    /// SIGTERM instead.
    static func hookBody(folder: String, ignoringTerm: Bool = false) -> String {
        let trap = ignoringTerm ? "trap '' TERM" : "trap 'echo TERM >> \"\(folder)/hook.term\"; exit 143' TERM"
        return """
            \(trap)
            sleep 300 &
            echo $! > "\(folder)/child.pid"
            echo $$ > "\(folder)/hook.pid"
            wait
            """
    }

    @Test("a signal to the built binary stops the hook's whole group and keeps the account removing with its token", arguments: cases)
    func signalStopsHook(_ example: Case) async throws {
        let folder = try TemporaryDirectory()
        let binary = try BuiltBinary(executable: try BuiltBinary.located(), folder: folder)
        let server = try FakeGitbayServer()
        let name = "alice@127.0.0.1:\(server.port)"
        #expect(try await binary.run(["login", server.baseURL], stdin: server.mintToken(for: "alice")).code == 0)
        #expect(try await binary.run(["device", "set-token"], stdin: RemovalTests.token).code == 0)
        #expect(try await binary.run(["run"]).code == 0)
        #expect(server.devices(of: "alice").count == 1)
        let hook = try Self.installHook(in: folder.path + "/config", Self.hookBody(folder: folder.path))
        let store = try await StateStore.open(StateLocation(databasePath: binary.databasePath))
        let account = try #require(try await store.account(named: name))
        if example.removingFirst {
            try await store.setState(.removing, ofAccount: account.id)
        }

        let child = try binary.start(example.arguments + (example.removingFirst ? [] : [name]))
        let pids: (hook: pid_t, child: pid_t)
        do {
            pids = try await HookPids.wait(in: folder.path)
        } catch {
            let finished = await child.finish(timeout: .seconds(1))
            Issue.record("the hook did not start: \(finished.err)")
            throw error
        }
        // Whatever happens, nothing of the hook outlives the test.
        defer {
            kill(pids.child, SIGKILL)
            kill(pids.hook, SIGKILL)
        }
        child.send(example.signal)
        let finished = await child.finish(timeout: .seconds(30))

        #expect(finished.code == example.exitCode, "status \(finished.status) \(finished.err)")
        #expect(finished.err.contains("interrupted while the pre-remove hook \(hook) ran"), "\(finished.err)")
        #expect(SpawnedChild.isGone(pids.hook), "the hook still runs")
        #expect(SpawnedChild.isGone(pids.child), "the hook's child still runs")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/hook.term"), "the hook got SIGTERM first")
        let kept = try #require(try await store.account(named: name))
        #expect(kept.state == .removing)
        #expect(try await store.apiToken(ofAccount: kept.id) != nil)
        #expect(server.devices(of: "alice").isEmpty, "the deregistration before the hook stands")

        // The next run retries the removal and finishes it.
        _ = try Self.installHook(in: folder.path + "/config", "exit 0")
        let retry = try await binary.run(["run"])
        #expect(retry.code == 0, "\(retry.err)")
        #expect(try await store.account(named: name) == nil)
    }

    #if os(Linux)
    @Test("a signal to the built binary also stops what the hook started outside its process group (setsid)")
    func signalStopsSetsidChild() async throws {
        let folder = try TemporaryDirectory()
        let binary = try BuiltBinary(executable: try BuiltBinary.located(), folder: folder)
        let server = try FakeGitbayServer()
        let name = "alice@127.0.0.1:\(server.port)"
        #expect(try await binary.run(["login", server.baseURL], stdin: server.mintToken(for: "alice")).code == 0)
        let child = "sh -c 'echo $$ > \"\(folder.path)/child.pid\"; exec sleep 300'"
        _ = try Self.installHook(
            in: folder.path + "/config",
            """
            setsid \(child) &
            while [ ! -s "\(folder.path)/child.pid" ]; do sleep 0.02; done
            echo $$ > "\(folder.path)/hook.pid"
            sleep 1000
            """)

        let running = try binary.start(["remove-account", name])
        let pids: (hook: pid_t, child: pid_t)
        do {
            pids = try await HookPids.wait(in: folder.path)
        } catch {
            let finished = await running.finish(timeout: .seconds(1))
            Issue.record("the hook did not start: \(finished.err)")
            throw error
        }
        running.send(SIGTERM)
        let finished = await running.finish(timeout: .seconds(30))
        let childGone = await HookPids.reaped(pids.child)
        if !childGone { kill(pids.child, SIGKILL) }
        #expect(finished.code == ExitCode.unavailable.rawValue, "status \(finished.status) \(finished.err)")
        #expect(SpawnedChild.isGone(pids.hook), "the hook still runs")
        #expect(childGone, "the hook's setsid child still runs")
    }
    #endif

    @Test(
        "a hook ignoring SIGTERM is killed with its group after the grace, or at once on a second request; --force does not override",
        arguments: [1, 2])
    func escalation(requests: Int) async throws {
        let server = try FakeGitbayServer()
        let (cli, name) = try await RemovalTests.registeredAlice(on: server, apiToken: server.mintToken(for: "alice"))
        _ = try RemovalTests.installHook(cli, Self.hookBody(folder: cli.folder.path, ignoringTerm: true))
        let shutdown = ShutdownSignal()
        let stopper = Task {
            let pids = try await HookPids.wait(in: cli.folder.path)
            for _ in 0..<requests { #expect(shutdown.request() != .unhandled) }
            return pids
        }
        let result = await cli.run(["remove-account", name, "--force"]) { context in
            context.shutdown = shutdown
            // One request gets a short grace; two must not wait for a long one.
            context.hookStopGrace = requests == 1 ? .milliseconds(200) : .seconds(3600)
        }
        let pids = try await stopper.value
        defer {
            kill(pids.child, SIGKILL)
            kill(pids.hook, SIGKILL)
        }
        #expect(result.code == ExitCode.unavailable.rawValue, "\(result.err)")
        #expect(result.err.contains("is not removed yet: interrupted"))
        #expect(SpawnedChild.isGone(pids.hook) && SpawnedChild.isGone(pids.child))
        let store = try await cli.store()
        let account = try #require(try await store.account(named: name))
        #expect(account.state == .removing)
        #expect(try await store.apiToken(ofAccount: account.id) != nil)
        #expect(try await store.status(ofAccount: account.id).lastError?.contains("interrupted") == true)
    }

    @Test("no hook starts once a stop was requested: remove-account then sends nothing, keeps the account and exits 130")
    func noHookAfterStop() async throws {
        let server = try FakeGitbayServer()
        let (cli, name) = try await RemovalTests.registeredAlice(on: server, apiToken: server.mintToken(for: "alice"))
        let ran = cli.folder.path + "/ran"
        _ = try RemovalTests.installHook(cli, "touch '\(ran)'")
        let shutdown = ShutdownSignal()
        shutdown.claim()
        shutdown.request()
        let result = await cli.run(["remove-account", name]) { $0.shutdown = shutdown }
        #expect(result.code == 130, "\(result.err)")
        #expect(result.err.contains("\(name) is not removed: this device is not deregistered yet"), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: ran))
        #expect(server.devices(of: "alice").count == 1)
        let store = try await cli.store()
        #expect(try await store.account(named: name)?.state == .removing)
    }

    /// Writes an executable pre-remove hook with this shell body under `config`.
    static func installHook(in config: String, _ body: String) throws -> String {
        let folder = config + "/gitbay-sync/hooks"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/pre-remove"
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }
}
