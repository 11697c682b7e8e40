import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CommandRunner {
    /// What a command that asks every account's server got back: the answers that landed, and
    /// whether a stop (SIGINT, SIGTERM) cut the others short.
    struct LiveAnswers<Value: Sendable>: Sendable {
        let answers: [AccountFanOut.Answer<Value>]
        let interrupted: Bool
    }

    /// Calls `body` for every account at once (`fanOut`), printing each account's `text` as its
    /// answer lands, as `run` prints its lines (`RunProgressOutput`: in sign-in order on a
    /// terminal, never held for an account in flight a second, which the status line names
    /// instead). With `--json` nothing is printed here. A stop cancels what is in flight:
    /// those accounts are left out of the answers.
    func liveFanOut<Value: Sendable>(
        _ accounts: [AccountRecord], store: StateStore, asking body: @escaping @Sendable (GitbayClient) async throws -> Value,
        text: @escaping @Sendable (AccountFanOut.Answer<Value>) -> [String]
    ) async -> LiveAnswers<Value> {
        let (shutdown, json) = (context.shutdown, global.json)
        shutdown.claim()
        let live = progressOutput(order: accounts.map(\.id))
        let ticker = live.ticking(context.statusLine.tick)
        let fan = fanOut(store)
        let work = Task {
            await fan.run(
                accounts, started: { live.started($0.id, name: $0.name) },
                answered: { answer in
                    let cut = shutdown.phase != .running && Self.isStop(answer.outcome)
                    live.finished(answer.account.id, line: json || cut ? nil : text(answer).joined(separator: "\n"))
                }, body)
        }
        let stopper = Task {
            await shutdown.wait(for: .stopping)
            if !Task.isCancelled { work.cancel() }
        }
        let answers = await work.value
        ticker.cancel()
        stopper.cancel()
        live.end()
        let interrupted = shutdown.phase != .running
        return LiveAnswers(answers: interrupted ? answers.filter { !Self.isStop($0.outcome) } : answers, interrupted: interrupted)
    }

    /// What prints each account's line as it is done, and the status line on a terminal (not
    /// under `--json`), the lines kept in `order` there.
    func progressOutput(order: [Int64]) -> RunProgressOutput {
        RunProgressOutput(
            shows: context.console.errorIsTerminal && !global.json, delay: context.statusLine.delay, width: context.width(of: 2),
            now: context.now, out: context.console.out, errRaw: context.console.errRaw, order: order)
    }

    /// After a stop: says which accounts' answers never landed, and ends the command by the
    /// signal (130 for SIGINT).
    func stoppedAsking(_ accounts: [AccountRecord], answered: [AccountRecord]) throws -> Never {
        let done = Set(answered.map(\.id))
        let notDone = accounts.filter { !done.contains($0.id) }.map { TerminalText.escaped($0.name) }
        let said =
            notDone.isEmpty
            ? "Error: interrupted after every account answered."
            : "Error: interrupted: \(notDone.count) of \(accounts.count) account\(accounts.count == 1 ? "" : "s") not asked to the end: \(notDone.joined(separator: ", "))."
        context.console.err(journalErr.line(.error, said))
        throw StoppedBySignal(signal: context.shutdown.stopSignal ?? SIGINT)
    }

    /// Whether an account's call ended because the command was stopped.
    private static func isStop<Value>(_ outcome: Result<Value, any Error>) -> Bool {
        guard case .failure(let error) = outcome else { return false }
        if error is CancellationError { return true }
        if let error = error as? GitbayError, case .transport(.cancelled) = error.kind { return true }
        return false
    }
}
