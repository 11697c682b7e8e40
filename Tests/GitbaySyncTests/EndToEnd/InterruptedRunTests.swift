import Foundation
import GitbayFake
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C to the built binary's one-shot `run` and `doctor`, as a shell delivers it.
@Suite("Interrupted run", .timeLimit(.minutes(1)))
struct InterruptedRunTests {
    @Test("SIGINT prints the accounts done, names the one not done, and ends the process by SIGINT (the shell's 130)")
    func sigint() async throws {
        let (fast, hung, cli) = (try FakeGitbayServer(), try FakeGitbayServer(), try CLIHarness())
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let alice = try await cli.login(fast, "alice")
        let bob = try await cli.login(hung, "bob")
        hung.inject(.hang, command: "notifications device list", times: 10)
        let (outPath, errPath) = (cli.folder.path + "/out", cli.folder.path + "/err")
        let out = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let err = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let null = try ChildProcess.nullDevice()
        defer { [out, err, null].forEach { close($0) } }
        let run = try SpawnedChild.spawn(
            try BuiltBinary.located(), ["run"], environment: cli.environment.merging(["GITBAY_SYNC_DB": cli.databasePath]) { $1 },
            descriptors: [0: null, 1: out, 2: err])
        defer { run.stop() }
        // Alice's line is on stdout while bob's list still hangs: that is when Ctrl-C comes.
        for _ in 0..<2000 where !BuiltBinary.text(outPath).contains(alice) {
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(run.pid, SIGINT)
        let ending = run.wait(deadline: .seconds(30), memoryCap: 1 << 30)
        #expect(ending.killedBecause == nil)
        #expect(ending.code == nil && ending.signal == SIGINT, "exit \(String(describing: ending.code)): \(BuiltBinary.text(errPath))")
        #expect(BuiltBinary.text(outPath).contains("\(alice)  unchanged, device "), "\(BuiltBinary.text(outPath))")
        #expect(BuiltBinary.text(errPath).contains("Error: interrupted: 1 of 2 accounts not done: \(bob)."), "\(BuiltBinary.text(errPath))")
    }

    @Test("SIGINT to doctor while an instance hangs prints the report, names that account, and ends the process by SIGINT")
    func doctor() async throws {
        let (fast, hung, cli) = (try FakeGitbayServer(), try FakeGitbayServer(), try CLIHarness())
        _ = try await cli.login(fast, "alice")
        let bob = try await cli.login(hung, "bob")
        hung.inject(.hang, command: "whoami", times: 10)
        // Only doctor's requests count from here.
        hung.resetRequests()
        let (outPath, errPath) = (cli.folder.path + "/out", cli.folder.path + "/err")
        let out = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let err = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let null = try ChildProcess.nullDevice()
        defer { [out, err, null].forEach { close($0) } }
        let doctor = try SpawnedChild.spawn(
            try BuiltBinary.located(), ["doctor"], environment: cli.environment.merging(["GITBAY_SYNC_DB": cli.databasePath]) { $1 },
            descriptors: [0: null, 1: out, 2: err])
        defer { doctor.stop() }
        // Bob's whoami hangs (for up to doctor's 10 s probe timeout): that is when Ctrl-C comes.
        for _ in 0..<2000 where !hung.requests().contains(where: { $0.argv.first == "whoami" }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(doctor.pid, SIGINT)
        let ending = doctor.wait(deadline: .seconds(30), memoryCap: 1 << 30)
        #expect(ending.killedBecause == nil)
        #expect(ending.code == nil && ending.signal == SIGINT, "exit \(String(describing: ending.code)): \(BuiltBinary.text(errPath))")
        #expect(BuiltBinary.text(outPath).contains("\(bob): not checked: doctor was stopped"), "\(BuiltBinary.text(outPath))")
        let said = BuiltBinary.text(errPath)
        #expect(said.contains("Error: interrupted: ") && said.contains("not asked to the end: ") && said.contains(bob), "\(said)")
    }
}
