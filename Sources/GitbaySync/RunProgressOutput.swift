import GitbaySupport
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `run` shows as it goes: each account's line on stdout as it is done and, when a person
/// watches standard error on a terminal, one status line there naming the accounts in flight
/// for a while and for how long, rewritten in place. The status line is cleared before each
/// account's line and drawn again after it, and cleared for good when the run ends.
///
/// On a terminal the lines keep the accounts' sign-in order (`order`), so that one run reads
/// like the last: a line waits for the accounts before it, but never for one that has been in
/// flight for `delay` (a slow or hung server), which the status line names instead, nor for one
/// that has not started `delay` after the output began. Off a terminal each line is printed as
/// its account is done.
package final class RunProgressOutput: Sendable {
    /// When the status line shows and how often it is drawn again.
    package struct Timing: Sendable {
        /// How long an account is in flight before the line names it.
        package var delay: Duration = .seconds(1)
        /// Waits until the next redraw; throws when cancelled.
        package var tick: @Sendable () async throws -> Void = { try await Task.sleep(for: .milliseconds(250)) }

        package init() {}
    }

    private struct State {
        /// The accounts in flight, by id: each one's name and since when.
        var inFlight: [Int64: (name: String, since: Date)] = [:]
        /// The accounts done, by id, each with the line printed for it (nil: none).
        var done: [Int64: String?] = [:]
        /// The text on the terminal now, if any.
        var drawn: String?
        /// Lines of accounts done, waiting for an account before them in `order`.
        var held: [Int64: String] = [:]
        /// The accounts' ids in sign-in order, the order their lines keep on a terminal.
        var order: [Int64]
    }

    private let state: Mutex<State>
    /// Whether the status line is drawn at all (a terminal, text output).
    private let shows: Bool
    private let delay: Duration
    private let width: Int
    private let now: @Sendable () -> Date
    private let out: @Sendable (String) -> Void
    private let errRaw: @Sendable (String) -> Void
    /// When the output began: an account not started yet counts as in flight since then (one
    /// skipped at once is done before the accounts ahead of it have started).
    private let began: Date

    init(
        shows: Bool, delay: Duration, width: Int, now: @escaping @Sendable () -> Date, out: @escaping @Sendable (String) -> Void,
        errRaw: @escaping @Sendable (String) -> Void, order: [Int64] = []
    ) {
        (self.shows, self.delay, self.width, self.now, self.out, self.errRaw) = (shows, delay, width, now, out, errRaw)
        state = Mutex(State(order: order))
        began = now()
    }

    /// Sets the order the lines keep, for an output made before the accounts were read; told
    /// before any account is done.
    func order(_ accounts: [Int64]) {
        state.withLock { $0.order = accounts }
    }

    func started(_ account: Int64, name: String) {
        state.withLock { $0.inFlight[account] = (name, now()) }
    }

    /// Prints `line` (nil: none) for an account that is done: the status line is cleared
    /// first and drawn again after it, without the account.
    func finished(_ account: Int64, line: String?) {
        state.withLock { state in
            state.inFlight[account] = nil
            state.done[account] = line
            if let line { state.held[account] = line }
            release(&state, all: !shows)
            redraw(&state)
        }
    }

    /// Prints the held lines whose turn has come: in `order`, up to the first account not done
    /// that is in flight (or not started) for less than `delay`; with `all`, every one (and any
    /// not in `order`).
    private func release(_ state: inout State, all: Bool) {
        guard !state.held.isEmpty else { return }
        var ready: [String] = []
        // With `all`, one line has no order to keep: off a terminal, where each account's line is
        // printed as it is done, the accounts are not gone through for every line.
        if !all || state.held.count > 1 {
            let now = now()
            for id in state.order {
                if let line = state.held.removeValue(forKey: id) {
                    ready.append(line)
                } else if !all, state.done[id] == nil, !isLong(state.inFlight[id]?.since ?? began, now: now) {
                    break
                }
            }
        }
        if all || state.order.isEmpty {
            ready += state.held.values
            state.held = [:]
        }
        guard !ready.isEmpty else { return }
        clear(&state)
        ready.forEach(out)
    }

    /// Whether an account in flight `since` has been for `delay`.
    private func isLong(_ since: Date, now: Date) -> Bool {
        now.timeIntervalSince(since) >= Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
    }

    /// The accounts told done so far, with the line printed for each (nil: none).
    var done: [Int64: String?] { state.withLock { $0.done } }

    /// Draws the line again at each `tick` until the task is cancelled; a task that ends at
    /// once where the line is not shown.
    func ticking(_ tick: @escaping @Sendable () async throws -> Void) -> Task<Void, Never> {
        Task { [shows] in
            guard shows else { return }
            while !Task.isCancelled, (try? await tick()) != nil { refresh() }
        }
    }

    /// Draws the line again as time has passed.
    func refresh() {
        state.withLock { state in
            release(&state, all: false)
            redraw(&state)
        }
    }

    /// Clears the line for good: the run is over.
    func end() {
        state.withLock { state in
            state.inFlight = [:]
            release(&state, all: true)
            clear(&state)
        }
    }

    private func clear(_ state: inout State) {
        guard state.drawn != nil else { return }
        errRaw("\r\u{1B}[K")
        state.drawn = nil
    }

    private func redraw(_ state: inout State) {
        guard shows else { return }
        guard let text = Self.text(Array(state.inFlight.values), now: now(), delay: delay, width: width) else { return clear(&state) }
        guard text != state.drawn else { return }
        errRaw("\r" + text + "\u{1B}[K")
        state.drawn = text
    }

    /// The status line for the accounts in flight since when, nil while none has been for
    /// `delay`: how long the oldest has been, then the names, oldest first, with as many as
    /// fit in `width` columns (`and N more` for the rest).
    static func text(_ inFlight: [(name: String, since: Date)], now: Date, delay: Duration, width: Int) -> String? {
        let oldest = inFlight.sorted { ($0.since, $0.name) < ($1.since, $1.name) }
        guard let first = oldest.first,
            now.timeIntervalSince(first.since) >= Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        else { return nil }
        let seconds = max(0, Int(now.timeIntervalSince(first.since)))
        let head = "waiting \(IntervalParser.format(.seconds(max(1, seconds)))) on \(oldest.count) account\(oldest.count == 1 ? "" : "s"): "
        let names = oldest.map { TerminalText.escaped($0.name) }
        // The last column is left free: a line that fills it makes some terminals wrap.
        let room = max(1, width - 1)
        var shown = 0
        var text = head
        for (index, name) in names.enumerated() {
            let rest = names.count - index - 1
            let more = rest == 0 ? "" : " and \(rest) more"
            let candidate = text + (index == 0 ? "" : ", ") + name
            guard (candidate + more).count <= room else { break }
            text = candidate
            shown += 1
        }
        if shown == 0 { return String((head + names[0]).prefix(room - 1)) + "…" }
        if shown < names.count { text += " and \(names.count - shown) more" }
        return text
    }
}
