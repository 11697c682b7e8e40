import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("A hidden prompt ended by a signal", .timeLimit(.minutes(1)))
struct HiddenPromptTests {
    /// A pseudo-terminal: the leader side stays with the test, the follower is the child's
    /// terminal, and its settings can be read after the child is gone.
    final class PseudoTerminal: Sendable {
        struct Unavailable: Error, CustomStringConvertible {
            let step: String
            let error = errno
            var description: String { "no pseudo-terminal: \(step) failed (\(String(cString: strerror(error))))" }
        }

        let leader: Int32
        let follower: Int32

        init() throws {
            leader = Terminals.openLeader(O_RDWR | O_NOCTTY)
            guard leader >= 0 else { throw Unavailable(step: "posix_openpt") }
            guard Terminals.grant(leader) == 0, Terminals.unlock(leader) == 0 else {
                close(leader)
                throw Unavailable(step: "grantpt/unlockpt")
            }
            let name = Terminals.followerName(leader)
            let follower = name.map { open($0, O_RDWR | O_NOCTTY) } ?? -1
            guard follower >= 0 else {
                close(leader)
                throw Unavailable(step: "opening the follower")
            }
            self.follower = follower
        }

        deinit {
            close(follower)
            close(leader)
        }

        /// Whether the terminal echoes what is typed.
        var echoes: Bool {
            var settings = termios()
            tcgetattr(follower, &settings)
            return settings.c_lflag & tcflag_t(ECHO) != 0
        }
    }

    struct Case: Sendable, CustomStringConvertible {
        let arguments: [String]
        let signal: Int32
        let signalName: String
        var description: String { "\(arguments.joined(separator: " ")), \(signalName)" }
    }

    static let cases = [
        Case(arguments: ["login", "https://gitbay.example"], signal: SIGINT, signalName: "SIGINT"),
        Case(arguments: ["login", "https://gitbay.example"], signal: SIGTERM, signalName: "SIGTERM"),
        Case(arguments: ["login", "https://gitbay.example"], signal: SIGHUP, signalName: "SIGHUP"),
        Case(arguments: ["login", "https://gitbay.example"], signal: SIGQUIT, signalName: "SIGQUIT"),
        Case(arguments: ["device", "set-token"], signal: SIGINT, signalName: "SIGINT"),
    ]

    @Test("echo is on again and the process ends by the signal", arguments: cases)
    func echoRestored(_ example: Case) async throws {
        let folder = try TemporaryDirectory()
        let binary = try BuiltBinary(executable: try BuiltBinary.located(), folder: folder)
        let terminal = try PseudoTerminal()
        #expect(terminal.echoes)
        // No core file for SIGQUIT: the limit is set by a shell that then becomes gitbay-sync.
        let child = try binary.start(
            example.arguments, terminal: terminal.follower, launcher: ["/bin/sh", "-c", "ulimit -c 0; exec \"$@\"", "sh"]
        )
        let asked = ContinuousClock.now + .seconds(30)
        while terminal.echoes && ContinuousClock.now < asked {
            try await Task.sleep(for: .milliseconds(10))
        }
        guard !terminal.echoes else {
            child.send(SIGKILL)
            Issue.record("the hidden prompt never came: \(await child.finish().err)")
            return
        }
        child.send(example.signal)
        let finished = await child.finish(timeout: .seconds(30))
        #expect(terminal.echoes, "echo is still off")
        #expect(finished.ending.bySignal && finished.status == example.signal, "ended with \(finished.ending)")
    }
}

/// The pseudo-terminal calls of the C library. Glibc's module leaves them out (they need
/// `_XOPEN_SOURCE`), so on Linux they are looked up by name in the running program.
enum Terminals {
    #if canImport(Glibc)
    private static func function<Function>(_ name: String, as type: Function.Type) -> Function {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { preconditionFailure("the C library has no \(name)") }
        return unsafeBitCast(symbol, to: type)
    }

    static let openLeader = function("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
    static let grant = function("grantpt", as: (@convention(c) (Int32) -> Int32).self)
    static let unlock = function("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
    private static let nameInto = function("ptsname_r", as: (@convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32).self)

    static func followerName(_ leader: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 128)
        guard nameInto(leader, &buffer, buffer.count) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    #else
    static func openLeader(_ flags: Int32) -> Int32 { posix_openpt(flags) }
    static func grant(_ leader: Int32) -> Int32 { grantpt(leader) }
    static func unlock(_ leader: Int32) -> Int32 { unlockpt(leader) }

    /// `ptsname` answers in a buffer shared by the whole process.
    private static let naming = NSLock()

    static func followerName(_ leader: Int32) -> String? {
        naming.withLock { ptsname(leader).map { String(cString: $0) } }
    }
    #endif
}
