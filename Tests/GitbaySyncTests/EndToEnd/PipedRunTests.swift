import Foundation
import GitbayFake
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built binary's `run` into a pipe, as `gitbay-sync run | ts` or a journal reads it: each
/// account's line leaves the process as the account is done, not when the run ends.
@Suite("Piped run", .timeLimit(.minutes(1)))
struct PipedRunTests {
    /// Lines read from a pipe on a thread of their own, each with when it was read.
    final class TimedLines: Sendable {
        private let lines = LockedBox<[(at: ContinuousClock.Instant, text: String)]>([])

        /// Reads `descriptor` to its end, then closes it.
        init(reading descriptor: Int32) {
            let lines = lines
            Thread.detachNewThread {
                var pending: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(descriptor, &buffer, buffer.count)
                    guard count > 0 else { break }
                    let at = ContinuousClock.now
                    pending += buffer[0..<count]
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let text = String(decoding: pending[..<newline], as: UTF8.self)
                        pending.removeSubrange(...newline)
                        lines.mutate { $0.append((at, text)) }
                    }
                }
                close(descriptor)
            }
        }

        /// The first line read that starts with `prefix`, and when.
        func first(startingWith prefix: String) -> (at: ContinuousClock.Instant, text: String)? {
            lines.value.first { $0.text.hasPrefix(prefix) }
        }

        var all: [String] { lines.value.map(\.text) }
    }

    @Test("the fast instance's account line comes through the pipe while the other instance still holds its answer")
    func linesLeaveAsDone() async throws {
        let (fast, slow, cli) = (try FakeGitbayServer(), try FakeGitbayServer(), try CLIHarness())
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let alice = try await cli.login(fast, "alice")
        let bob = try await cli.login(slow, "bob")
        // Bob's server holds its first answer until the test lets it go (a slow instance, on cue).
        slow.inject(.hang, command: "notifications device list", times: 1)
        let pipe = try ChildPipe()
        let errPath = cli.folder.path + "/err"
        let err = try ChildProcess.outputFile(errPath)
        let null = try ChildProcess.nullDevice()
        let started = ContinuousClock.now
        let run = try SpawnedChild.spawn(
            try BuiltBinary.located(), ["run"], environment: cli.environment.merging(["GITBAY_SYNC_DB": cli.databasePath]) { $1 },
            descriptors: [0: null, 1: pipe.writeEnd, 2: err])
        [pipe.writeEnd, err, null].forEach { close($0) }
        defer { run.stop() }
        let lines = TimedLines(reading: pipe.readEnd)

        for _ in 0..<2000 where lines.first(startingWith: alice) == nil {
            try await Task.sleep(for: .milliseconds(10))
        }
        let released = ContinuousClock.now
        let aliceLine = try #require(
            lines.first(startingWith: alice), "alice's line never came through the pipe while bob's server held its answer: \(lines.all)")
        // Let bob's answer go: the held connection closes, and the run tries the list again.
        slow.closeConnections()
        let ending = run.wait(deadline: .seconds(30), memoryCap: 1 << 30)

        #expect(ending.killedBecause == nil)
        #expect(aliceLine.text.hasPrefix("\(alice)  unchanged, device "), "\(aliceLine.text)")
        let bobLine = try #require(lines.first(startingWith: bob), "\(lines.all) \(BuiltBinary.text(errPath))")
        #expect(aliceLine.at < released && released <= bobLine.at, "alice's line before bob's answer, bob's after it")
        #expect(ending.code == 0 || ending.code == 1, "exit \(String(describing: ending.code)): \(BuiltBinary.text(errPath))")
        print("piped run: alice's line after \(aliceLine.at - started), bob's after \(bobLine.at - started)")
    }
}
