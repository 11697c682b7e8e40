import GitbayAPI
import GitbayReconcile
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

/// `remove-account <account> [--force]`, also called `logout`.
struct RemoveAccountCommand: CommandDefinition {
    static let force = CommandSpec.Option(
        name: "--force", valueName: nil,
        help:
            "Delete now even if the server cannot be reached, the hook fails or the token cannot be revoked; lists the rows left behind and how to revoke the token by hand."
    )

    static let sendsRequests = true

    static let spec = CommandSpec(
        words: ["remove-account"], aliases: ["logout"], group: .accounts, arguments: [.account], options: [force],
        summary: "Sign out: deregister this device, then revoke and delete the token.",
        discussion: """
            Runs the pre-removal hook: deregisters every row this device holds for the account,
            then runs $XDG_CONFIG_HOME/gitbay-sync/hooks/pre-remove if it is executable, then
            revokes the API token on the server when its name is known (`login --ssh` minted
            it, or `login --token-name` named it) and checks that the token is then refused,
            and only then deletes the token and the records. A token that still works after
            its name was revoked (the name was another token's) is kept, and the message says
            how to find and revoke it. A token pasted without a name is deleted here only, and is still valid on
            the server: the message says how to revoke it (`ssh git@HOST token list`, then
            `ssh git@HOST token revoke <name>`, or to the destination `login --ssh` was
            given). If the account held the device token on
            its instance, another account there takes it over at once. If the server cannot be
            reached, the hook fails or the token cannot be revoked, the account stays `removing`
            with its token (exit 69), and `gitbay-sync run` retries the removal (so does the
            timer, if installed; a hook that passed is not run again). A hook that
            another user owns, or that group or others can write (or its folder), is not run and
            counts as failed. A hook running after 30 seconds is stopped and counts as failed;
            whatever it started is stopped with it (on macOS, only its process group: a child it
            moved to another session with setsid runs on), and so is what it left running when
            it exits. The other accounts' lines print as each is done. Ctrl-C (or SIGTERM) cuts
            short what is in flight, says whether the device was deregistered and the token deleted
            (if not, the account stays `removing` with its token) or which other accounts were not
            reconciled, and ends the command by the signal (130; while the hook runs, exit 69).
            `logout` is another name for this command.
            """,
        examples: [
            .init("Sign out of an account: this device stops getting its pushes", ["remove-account", "alice@gitbay.org"]),
            .init("The same, by its other name", ["logout", "alice@gitbay.org"]),
            .init(
                "Sign out now although its server cannot be reached; says which rows are left",
                ["remove-account", "--force", "bob@gitbay.example.com"]),
        ]
    )

    let account: String
    let force: Bool

    init(account: String, force: Bool = false) {
        self.account = account
        self.force = force
    }

    init(_ input: CommandInput) throws(UsageError) {
        account = try input.required(.account)
        force = input.isSet(Self.force)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.removeAccount(account, force: force)
    }
}

extension CommandRunner {
    /// `remove-account <account> [--force]` (or `logout`). When the device was deregistered,
    /// the instance's other accounts are reconciled at once, so that one of them takes over the
    /// device token if the removed account held it; their lines print as each is done, after
    /// the sentence that says how the removal ended. A stop (SIGINT, SIGTERM) cuts short what
    /// is in flight, says what was done and what was not, and ends the command by the signal.
    fileprivate func removeAccount(_ name: String, force: Bool) async throws -> ExitCode {
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        let others = try await store.accounts(onServerOf: account.instance).filter { $0.id != account.id && $0.state == .active }
        let (out, json) = (context.console.out, global.json)
        let (removed, live) = try await liveReconcile(store, order: others, quiet: [account.id]) { engine in
            try await engine.removeAccount(account, force: force) { result in
                if !json, let said = RemovalVerdict(result, account: account).said { out(said) }
            }
        } outcomes: {
            $0.handedOver
        }
        let (result, outcomes) = (removed.result, live.outcomes)
        let verdict = RemovalVerdict(result, account: account)
        if !json { printChanged(outcomes, printed: live.printed, width: live.width) }
        show(RemovalOutput(account: account, result: result, verdict: verdict, outcomes: outcomes, saidAlready: true))
        if !verdict.left.isEmpty {
            let left = verdict.left
            context.console.err(
                "Warning: \(TerminalText.escaped(account.name)) still has this device's row\(left.count == 1 ? "" : "s") \(left.map(String.init).joined(separator: ", ")) on \(account.instance), which may keep pushing here; remove \(left.count == 1 ? "it" : "them") on the instance's settings page."
            )
        }
        if live.interrupted { try stoppedRemoving(account, result, handover: others, live) }
        if let failure = verdict.failure {
            context.console.err("Error: \(escaped: failure.message)")
        }
        let handedOver = report(outcomes, lines: false)
        return verdict.failure?.exitCode ?? handedOver
    }

    /// After a stop: what the removal did and did not, or which of the instance's other accounts
    /// were not reconciled, and the command ends by the signal. A removal the stop held at the
    /// pre-remove hook (`interrupted`), one another process finishes, or one a sign-in undid,
    /// is said as without a stop.
    private func stoppedRemoving(_ account: AccountRecord, _ result: AccountRemoval.Result, handover: [AccountRecord], _ live: LiveOutcomes) throws {
        switch result {
        case .removed, .forced:
            _ = report(live.outcomes, lines: false)
            let answered = Set(live.outcomes.map(\.accountID))
            try stoppedAsking(handover, answered: handover.filter { answered.contains($0.id) })
        case .kept(_, let hold):
            let done =
                if !hold.deregistered {
                    "this device is not deregistered yet, and its API token is neither revoked nor deleted"
                } else if hold.revocationInterrupted {
                    "this device is deregistered, but its API token is not known to be revoked (its revocation was cut short) and is not deleted"
                } else {
                    "this device is deregistered, but its API token is neither revoked nor deleted yet"
                }
            let said =
                "Error: interrupted: \(TerminalText.escaped(account.name)) is not removed: \(done); it stays `removing` with its API token and is no longer counted as signed in, and `gitbay-sync run` or `\(ShellWords.gitbaySync("remove-account", account.name))` finishes the removal."
            context.console.err(journalErr.line(.error, said))
            throw StoppedBySignal(signal: context.shutdown.stopSignal ?? SIGINT)
        case .interrupted, .busy, .signedInAgain:
            return
        }
    }
}

/// What `remove-account` prints.
struct RemovalOutput: CommandOutput {
    let account: AccountRecord
    let result: AccountRemoval.Result
    let verdict: RemovalVerdict
    /// The instance's other accounts, reconciled so that one takes the device token over.
    let outcomes: [SaidOutcome]
    /// Whether the sentence on how the removal ended was printed already, as it ended.
    var saidAlready = false

    var json: JSONValue {
        .object([
            ("account", .string(account.name)),
            ("result", .string(verdict.word)),
            ("rows_left", .array(verdict.left.map(JSONValue.int))),
            ("token_revoked", .bool(verdict.token?.isRevoked ?? false)),
            ("token_name", .optional(verdict.token?.name ?? verdict.heldName)),
            ("tokens_left", .array((verdict.token?.staleLeft ?? []).map(JSONValue.string))),
            ("requests", .int(requests)),
            ("error", .optional(verdict.failure?.message ?? forcedError)),
            ("accounts", .array(outcomes.map(\.json))),
        ])
    }

    var text: [String] {
        let taking: Set<AccountOutcome.Action> = [.added, .reAdded, .rotated, .adopted]
        let takers = outcomes.filter { $0.condition == .registered && taking.contains($0.action) }
        return (saidAlready ? [] : verdict.said.map { [$0] } ?? [])
            + takers.map { "\(escaped: $0.account) takes over this device's token on \(account.instance)." }
    }

    private var requests: Int {
        switch result {
        case .removed(let outcome, _, _), .forced(let outcome, _, _, _, _), .busy(let outcome, _), .interrupted(let outcome, _),
            .kept(let outcome, _), .signedInAgain(let outcome):
            outcome.requests
        }
    }

    /// What went wrong in a removal that still ended with the token deleted (`--force`).
    private var forcedError: String? {
        if case .forced(let outcome, _, _, _, _) = result { return outcome.failure.map(FailureText.said) }
        return nil
    }
}
