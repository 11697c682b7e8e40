import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A signal that comes while the process is still starting (a Ctrl-C typed at once, a
/// `systemctl stop` right after a start) ends it as one that comes later does. The signals were
/// once ignored until libdispatch had registered its signal sources, a few milliseconds in,
/// and one sent then was lost: the process sat at its prompt for good.
///
/// SIGQUIT is left out: until the process catches it, the Swift runtime's crash handler does,
/// prints a backtrace and lets the process go on.
@Suite("A signal in the first milliseconds", .timeLimit(.minutes(2)))
struct EarlySignalTests {
    struct Case: Sendable, CustomStringConvertible {
        let signal: Int32
        let name: String
        var description: String { name }
    }

    static let cases = [Case(signal: SIGINT, name: "SIGINT"), Case(signal: SIGTERM, name: "SIGTERM"), Case(signal: SIGHUP, name: "SIGHUP")]

    /// When the signal is sent after the start: every half millisecond of the first 20.
    static let delays = (0..<40).map { Duration.microseconds(500 * $0) }

    @Test("ends the process by the signal, with echo on, whenever it comes", arguments: cases)
    func endsWheneverItComes(_ example: Case) async throws {
        let folder = try TemporaryDirectory()
        let binary = try BuiltBinary(executable: try BuiltBinary.located(), folder: folder)
        var endings: [String] = []
        for delay in Self.delays {
            let terminal = try HiddenPromptTests.PseudoTerminal()
            let child = try binary.start(["login", "https://gitbay.example"], terminal: terminal.follower)
            try await Task.sleep(for: delay)
            child.send(example.signal)
            let finished = await child.finish(timeout: .seconds(20))
            if !(finished.ending.bySignal && finished.status == example.signal) || !terminal.echoes {
                endings.append("sent after \(delay): \(finished.ending), echo \(terminal.echoes ? "on" : "off")")
            }
        }
        #expect(endings.isEmpty, "not ended by \(example.name):\n\(endings.joined(separator: "\n"))")
    }
}
