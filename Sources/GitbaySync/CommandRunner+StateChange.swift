import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CommandRunner {
    /// A reason as the middle of a sentence: without the full stop it may end with.
    static func sentence(_ reason: String) -> String {
        reason.hasSuffix(".") ? String(reason.dropLast()) : reason
    }

    /// `pause` / `resume`: change what the account wants, then reconcile it (and the other
    /// accounts of its instance, which may take the device token over or give it back).
    /// `said` tells what came of it, from the account and its own outcome.
    func changeState(
        _ name: String, to state: AccountState, said: (AccountRecord, SaidOutcome?) -> String
    ) async throws -> ExitCode {
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        let accounts = try await store.accounts().filter { $0.instance == account.instance }
        let result = try await liveReconcile(store, order: accounts) { try await $0.setState(state, of: account) }
        let own = result.outcomes.first { $0.accountID == account.id }
        return try showLive(
            result,
            ReconciledOutput(
                fields: [("account", .string(account.name)), ("state", .string(state.rawValue))], outcomes: result.outcomes,
                text: [said(account, own)]),
            among: accounts)
    }

    /// `outcomes` with their skip reasons in words (`SkipReasonText`).
    func worded(_ outcomes: [AccountOutcome]) -> [SaidOutcome] {
        outcomes.map { SkipReasonText.worded(SaidOutcome($0), now: context.now()) }
    }

    /// What a use case's refusal says, and its exit code.
    static func failure(_ refusal: SyncEngine.Refusal) -> CommandFailure {
        switch refusal {
        case .beingSignedOut(let account): CommandFailure(beingSignedOut(account), exitCode: .noSuchAccount)
        }
    }

    /// Why a command for a signed-in account refuses one being signed out, and the ways on.
    static func beingSignedOut(_ account: AccountRecord) -> String {
        "\(account.name) is being signed out (`removing`), so it no longer counts as signed in; `\(ShellWords.gitbaySync("remove-account", account.name))` finishes the removal, `\(ShellWords.gitbaySync("login", account.instance))` signs it in again"
    }

    /// How long what failed stays so, and what ends it.
    static let untilRun = "until `gitbay-sync run` gets through to the server (the timer runs it, if installed)"
    static let orNextRun = "(or by the next `gitbay-sync run`)"
    /// Said when a deleted API token's bytes could not be moved out of the files yet.
    static let tokenBytesLinger =
        "its bytes stay in the database files while another gitbay-sync holds them open, and leave at the next checkpoint SQLite makes"
}
