import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CommandRunner {
    /// What `doctor` learnt of the accounts: their checks, in sign-in order, and which
    /// accounts' probes ended before a stop cut the others short.
    struct ProbedAccounts: Sendable {
        var checks: [DoctorCheck]
        var accounts: [AccountRecord] = []
        var answered: [AccountRecord] = []
    }

    /// Every account's checks, reported in sign-in order. The accounts are probed at once, each
    /// within its own deadline, so a hung instance holds back only its own accounts; on a
    /// terminal the status line names the accounts still probed after a second, as `run`'s
    /// does. SIGINT or SIGTERM cancels the probes in flight: those accounts get one failing
    /// check saying they were not checked.
    func accountChecks(_ store: StateStore, device: DeviceRecord?) async -> ProbedAccounts {
        guard let accounts = try? await store.accounts() else {
            return ProbedAccounts(checks: [.fail("accounts", location.databasePath, "cannot be read", fix: "see `gitbay-sync status`")])
        }
        guard !accounts.isEmpty else {
            return ProbedAccounts(checks: [
                .fail("accounts", "accounts", "no account is signed in", fix: "sign in with `gitbay-sync login <instance-url>`")
            ])
        }
        let now = context.now()
        // Where each token lives, and the tokens: the keyring read once for all of them.
        let places = (try? await store.tokenPlaces()) ?? [:]
        let stored = (try? await tokens(store).tokens(of: accounts)) ?? [:]
        let (client, logger) = (context.client, logger)
        let results = await probed(accounts, device: device, now: now) { account in
            AccountProbe(account: account, store: store, place: places[account.id], token: stored[account.id], client: client, logger: logger)
        }
        let checks = zip(accounts, results).flatMap { account, checks in
            checks ?? [
                .fail(
                    "account.reachable", account.name, "not checked: doctor was stopped before \(account.instance) answered",
                    fix: "run `gitbay-sync doctor` again")
            ]
        }
        return ProbedAccounts(checks: checks, accounts: accounts, answered: zip(accounts, results).filter { $0.1 != nil }.map(\.0))
    }

    /// Each account's checks from its `probe`, all at once; nil for the accounts whose probe a
    /// stop cut short.
    private func probed(
        _ accounts: [AccountRecord], device: DeviceRecord?, now: Date, _ probe: @escaping @Sendable (AccountRecord) -> AccountProbe
    ) async -> [[DoctorCheck]?] {
        let shutdown = context.shutdown
        shutdown.claim()
        let live = progressOutput(order: accounts.map(\.id))
        // Every probe is on its way from the start.
        for account in accounts { live.started(account.id, name: account.name) }
        let ticker = live.ticking(context.statusLine.tick)
        let work = Task {
            await withTaskGroup(of: (Int, [DoctorCheck]?).self) { group in
                for (index, account) in accounts.enumerated() {
                    group.addTask {
                        let checks = await probe(account).checks(device: device, now: now)
                        live.finished(account.id, line: nil)
                        // Checks a stop cut short say what the stop did, not what the account is.
                        return (index, Task.isCancelled ? nil : checks)
                    }
                }
                var results = [[DoctorCheck]?](repeating: nil, count: accounts.count)
                for await (index, checks) in group { results[index] = checks }
                return results
            }
        }
        let stopper = Task {
            await shutdown.wait(for: .stopping)
            if !Task.isCancelled { work.cancel() }
        }
        let results = await work.value
        stopper.cancel()
        ticker.cancel()
        live.end()
        return results
    }
}
