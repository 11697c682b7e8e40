import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
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
            it exits.
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
    /// device token if the removed account held it.
    fileprivate func removeAccount(_ name: String, force: Bool) async throws -> ExitCode {
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        // Another account of the instance may now hold the device token: it is handed over now
        // rather than at the next run.
        let removed = try await engine(store).removeAccount(account, force: force)
        let (result, outcomes) = (removed.result, worded(removed.handedOver))
        let verdict = RemovalVerdict(result, account: account)
        let (left, failure) = (verdict.left, verdict.failure)
        let shown = TerminalText.escaped(account.name)
        show(RemovalOutput(account: account, result: result, verdict: verdict, outcomes: outcomes))
        if !left.isEmpty {
            context.console.err(
                "Warning: \(shown) still has this device's row\(left.count == 1 ? "" : "s") \(left.map(String.init).joined(separator: ", ")) on \(account.instance), which may keep pushing here; remove \(left.count == 1 ? "it" : "them") on the instance's settings page."
            )
        }
        if let failure {
            context.console.err("Error: \(escaped: failure.message)")
        }
        let handedOver = report(outcomes)
        return failure?.exitCode ?? handedOver
    }
}

/// What `remove-account` prints.
struct RemovalOutput: CommandOutput {
    let account: AccountRecord
    let result: AccountRemoval.Result
    let verdict: RemovalVerdict
    /// The instance's other accounts, reconciled so that one takes the device token over.
    let outcomes: [SaidOutcome]

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
        return (verdict.said.map { [$0] } ?? []) + takers.map { "\(escaped: $0.account) takes over this device's token on \(account.instance)." }
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

/// What a removal's result means for `remove-account`: what to say, the JSON `result`, the rows
/// left on the server, and the error that ends the command.
struct RemovalVerdict {
    var said: String?
    var word = "kept"
    var left: [Int] = []
    var failure: CommandFailure?
    /// What became of the API token, once the account is deleted.
    var token: TokenRevocation?
    /// The token a held revocation was for.
    var heldName: String?

    init(_ result: AccountRemoval.Result, account: AccountRecord) {
        let shown = TerminalText.escaped(account.name)
        let retry =
            "runs retry the removal (the timer's too, if installed; after a server failure they wait out its backoff, `gitbay-sync run --now` does not)"
        let stillValid = { (token: TokenRevocation) in RemovalText.stillValid(token, of: account).map { " " + $0 } ?? "" }
        switch result {
        case .removed(_, let wiped, let revocation):
            token = revocation
            (said, word) = (
                "Removed \(shown): this device is deregistered and \(RemovalText.tokenGone(revocation))\(Self.lingering(wiped)).\(stillValid(revocation))",
                "removed"
            )
        case .forced(_, let rows, let hold, let wiped, let revocation):
            token = revocation
            (said, word, left) = (
                "Removed \(shown) by force: \(RemovalText.tokenGone(revocation))\(Self.lingering(wiped)), although \(TerminalText.escaped(RemovalText.held(hold))).\(stillValid(revocation))",
                "forced", rows
            )
        case .signedInAgain:
            failure = CommandFailure(
                "\(account.name) was signed in again while its removal ran, and that sign-in wins: it is not removed, and stays signed in with the new API token. To sign out, run `\(ShellWords.gitbaySync("remove-account", account.name))` again.",
                exitCode: .busy)
        case .busy(_, let pid):
            failure = CommandFailure(
                "\(account.name) is marked `removing`, but another gitbay-sync (pid \(pid)) is reconciling it right now: that process finishes the removal (or, if it stops first, `gitbay-sync run` does). It is no longer counted as signed in.",
                exitCode: .busy)
        case .interrupted(_, let reason):
            failure = CommandFailure(
                "\(account.name) is not removed yet: \(reason). This device is deregistered; the account stays `removing` with its API token and is no longer counted as signed in. `gitbay-sync run` or `\(ShellWords.gitbaySync("remove-account", account.name))` retries the removal (so does the timer, if installed).",
                exitCode: .unavailable)
        case .kept(let outcome, _) where outcome.condition == .authFailed:
            failure = CommandFailure(
                "\(account.name) is not removed yet: \(SkipReasonText.refusedRemoval(account)). It stays `removing` with its API token and is no longer counted as signed in.",
                exitCode: .denied)
        case .kept(_, let hold):
            failure = Self.held(hold, account: account, retry: retry)
            if case .revocationFailed(let name, _) = hold { heldName = name }
            if case .tokenStillValid(let name, _) = hold { heldName = name }
        }
    }

    /// The error of a removal kept as `removing` for `hold`.
    private static func held(_ hold: RemovalHold, account: AccountRecord, retry: String) -> CommandFailure {
        let why = CommandRunner.sentence(FailureText.said(hold.failure))
        switch hold {
        case .deregistrationFailed:
            return CommandFailure(
                "\(account.name) is not removed yet: \(why). It stays `removing` with its token and is no longer counted as signed in; \(retry), or use --force to delete it now.",
                exitCode: .unavailable)
        case .stepFailed:
            return CommandFailure(
                "\(account.name) is not removed yet: this device is deregistered, but \(why). The account stays `removing` with its API token and is no longer counted as signed in. Fix the hook, then \(retry); or use --force to delete the token now.",
                exitCode: .unavailable)
        case .revocationFailed(let name, _):
            return CommandFailure(
                "\(account.name) is not removed yet: \(RemovalText.held(hold)). It stays `removing` with its API token and is no longer counted as signed in; \(retry), or use --force to delete it here now (it then stays valid on the server until it is revoked by hand: \(RemovalText.sshCommand(account, ["token", "revoke", name]))).",
                exitCode: .unavailable)
        case .tokenStillValid:
            return CommandFailure(
                "\(account.name) is not removed yet: \(RemovalText.held(hold)). It stays `removing` with its API token and is no longer counted as signed in: find the token's name with `\(RemovalText.sshCommand(account, ["token", "list"]))` and revoke it with `\(RemovalText.sshCommand(account, ["token", "revoke", "<name>"]))`, then run `\(ShellWords.gitbaySync("remove-account", account.name))` again; or use --force to delete it here now (it then stays valid on the server until it is revoked by hand).",
                exitCode: .unavailable)
        }
    }

    /// What to add when the deleted token's bytes are still in the files.
    static func lingering(_ wiped: Bool) -> String {
        wiped ? "" : " (\(CommandRunner.tokenBytesLinger))"
    }
}
