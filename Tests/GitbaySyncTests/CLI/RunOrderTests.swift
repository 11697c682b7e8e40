import Foundation
import Testing

@testable import GitbaySync

/// `run`'s lines on a terminal keep the accounts' sign-in order, and never wait on a slow one.
@Suite("Run lines in sign-in order")
struct RunOrderTests {
    /// A progress output on a terminal, its clock `clock`, its lines collected in `lines`.
    static func output(_ clock: Clock, _ lines: Lines, shows: Bool = true) -> RunProgressOutput {
        RunProgressOutput(
            shows: shows, delay: .seconds(1), width: 80, now: { clock.now }, out: { lines.append($0) }, errRaw: { _ in }, order: [1, 2, 3])
    }

    final class Clock: Sendable {
        private let box = LockedBox(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { box.value }
        func advance(_ seconds: Double) { box.mutate { $0 += seconds } }
    }

    @Test("on a terminal, lines that land out of order are printed in sign-in order")
    func signInOrder() {
        let (clock, lines) = (Clock(), Lines())
        let live = Self.output(clock, lines)
        for id: Int64 in [1, 2, 3] { live.started(id, name: "account \(id)") }
        live.finished(3, line: "three")
        live.finished(1, line: "one")
        #expect(lines.all == ["one"])
        live.finished(2, line: "two")
        #expect(lines.all == ["one", "two", "three"])
    }

    @Test("a line never waits for an account in flight for a second: the slow one's line comes when it lands")
    func slowAccountDoesNotHold() {
        let (clock, lines) = (Clock(), Lines())
        let live = Self.output(clock, lines)
        for id: Int64 in [1, 2, 3] { live.started(id, name: "account \(id)") }
        live.finished(1, line: "one")
        live.finished(3, line: "three")
        #expect(lines.all == ["one"])
        clock.advance(1.5)
        live.refresh()
        #expect(lines.all == ["one", "three"])
        live.finished(2, line: "two")
        live.end()
        #expect(lines.all == ["one", "three", "two"])
    }

    @Test("an account done before the ones ahead of it have started (a skip) waits for them, as a second goes by")
    func doneBeforeOthersStart() {
        let (clock, lines) = (Clock(), Lines())
        let live = Self.output(clock, lines)
        live.finished(3, line: "three")
        #expect(lines.all == [], "accounts 1 and 2 have yet to start")
        live.started(1, name: "account 1")
        live.finished(1, line: "one")
        live.started(2, name: "account 2")
        live.finished(2, line: "two")
        #expect(lines.all == ["one", "two", "three"])
    }

    @Test("an account that has not started for a second holds no line")
    func notStartedDoesNotHold() {
        let (clock, lines) = (Clock(), Lines())
        let live = Self.output(clock, lines)
        live.finished(2, line: "two")
        #expect(lines.all == [])
        clock.advance(1.5)
        live.refresh()
        #expect(lines.all == ["two"])
        live.finished(1, line: "one")
        live.finished(3, line: "three")
        #expect(lines.all == ["two", "one", "three"])
    }

    @Test("off a terminal, each line is printed as its account is done")
    func offTerminal() {
        let (clock, lines) = (Clock(), Lines())
        let live = Self.output(clock, lines, shows: false)
        for id: Int64 in [1, 2, 3] { live.started(id, name: "account \(id)") }
        live.finished(3, line: "three")
        #expect(lines.all == ["three"])
    }
}
