import FoundationEssentials
import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

extension CommandRunner {
    /// `login <instance-url>`: verify the token (whoami, then a write refused as incomplete,
    /// to prove the scope), store the account, and register the device when a token is set.
    func login(_ instanceText: String) async throws -> ExitCode {
        let instance: InstanceURL
        do {
            instance = try InstanceURL(parsing: instanceText)
        } catch {
            throw CommandFailure(error.description, exitCode: .dataError)
        }
        let tokenText = try readSecret(prompt: "API token for \(instance) (input hidden): ", limit: .apiToken)
        try Self.checkAPIToken(tokenText)
        let apiToken = Secret(tokenText)
        let store = try await openStore()

        let client = GitbayClient(instance: instance, apiToken: apiToken, accountName: "\(instance.authority)", configuration: context.client, logger: logger)
        let whoami: WhoAmI
        do {
            whoami = try await client.whoami()
        } catch {
            throw loginFailure(error, instance: instance)
        }
        // The user name becomes the account's name, which commands take and print: it has
        // to be one line that prints as it is.
        guard Self.isUsableUsername(whoami.username) else {
            throw CommandFailure(
                "\(instance) answered `whoami` with \"\(whoami.username)\", which is not a usable user name (it is empty, or holds a line break, a control or bidi character, or a backslash); nothing was stored.",
                exitCode: .dataError
            )
        }
        do {
            // `whoami` cannot tell a read-only token; a write refused before it runs can.
            try await client.checkWriteScope()
        } catch {
            throw loginFailure(error, instance: instance)
        }
        let account = try await store.signIn(instance: instance, username: whoami.username, apiToken: apiToken, now: context.now())
        let device = try await store.device()
        var outcomes: [AccountOutcome] = []
        if device.token != nil {
            let siblings = try await store.accounts().filter { $0.instance == instance }.map(\.id)
            outcomes = try await reconciler(store).reconcile(only: Set(siblings))
        }
        if global.json {
            printJSON(.object([
                ("account", .string(account.name)),
                ("instance", .string(instance.description)),
                ("username", .string(account.username)),
                ("accounts", .array(outcomes.map(\.json))),
                ("ok", .bool(!outcomes.contains(where: \.isFailure))),
            ]))
        } else {
            context.console.out("Signed in as \(escaped: account.name).")
            if device.token == nil {
                context.console.out("No device token is set yet: set one with `gitbay-sync device set-token`, then `gitbay-sync run`.")
            }
        }
        return outcomes.isEmpty ? .success : report(outcomes)
    }

    /// A user name that can name an account: not empty, and nothing in it that text output
    /// would write escaped.
    static func isUsableUsername(_ username: String) -> Bool {
        !username.isEmpty && !username.unicodeScalars.contains(where: TerminalText.needsEscaping)
    }

    /// Refuses an API token that cannot be one, before any request carries it: a header
    /// cannot hold a control character, and a token is printable ASCII.
    static func checkAPIToken(_ text: String) throws {
        let limit = InputLimit.apiToken
        let problem: String? =
            if text.contains(where: \.isWhitespace) {
                "contains spaces"
            } else if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                "contains a control character (a NUL, an escape or the like)"
            } else if !text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
                "contains characters outside printable ASCII"
            } else {
                nil
            }
        if let problem {
            throw CommandFailure("the API token \(problem); \(limit.advice)", exitCode: .dataError)
        }
        guard text.utf8.count <= limit.maximumBytes else { throw limit.tooLong(bytes: text.utf8.count) }
    }

    private func loginFailure(_ error: Error, instance: InstanceURL) -> Error {
        guard let error = error as? GitbayError else { return error }
        switch error.kind {
        case .authFailed:
            return CommandFailure("\(instance) refused the API token (invalid, expired or revoked); nothing was stored. Mint a new one with `token create --name gitbay-sync --scope full`.", exitCode: .denied)
        case .readOnlyToken:
            return CommandFailure("the API token is read-only, and registering a device needs a full-scope token; nothing was stored. Mint one with `token create --name gitbay-sync --scope full`.", exitCode: .denied)
        case .notJSON:
            return CommandFailure("\(instance) did not answer as a gitbay API (is `[api] enabled = true` there, and is the address right?); nothing was stored.", exitCode: .unavailable)
        default:
            return CommandFailure("could not sign in at \(instance): \(error); nothing was stored.", exitCode: error.kind == .denied ? .denied : .unavailable)
        }
    }

    /// `accounts`.
    func accounts() async throws -> ExitCode {
        let store = try await openExistingStore()
        let rows = try await accountRows(store)
        if global.json {
            printJSON(.object([("accounts", .array(rows.map(\.json)))]))
        } else if rows.isEmpty {
            context.console.out("No accounts. Sign in with `gitbay-sync login <instance-url>`.")
        } else {
            for row in rows { context.console.out(row.text) }
        }
        return .success
    }

    /// `remove-account <account> [--force]` (or `logout`). When the device was deregistered,
    /// the instance's other accounts are reconciled at once, so that one of them takes over the
    /// device token if the removed account held it.
    func removeAccount(_ name: String, force: Bool) async throws -> ExitCode {
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        try await store.setState(.removing, ofAccount: account.id)
        let removing = try await store.account(id: account.id) ?? account
        let result = try await removal(store).finish(removing, force: force)
        let shown = TerminalText.escaped(account.name)
        let retry = "runs retry the removal (the timer's too, if installed; after a server failure they wait out its backoff, `gitbay-sync run --now` does not)"
        // What to say, the JSON `result`, the rows left on the server, and the error that
        // ends the command, if any.
        let (said, word, left, failure): (String?, String, [Int], CommandFailure?)
        var handOver = false
        switch result {
        case .removed:
            (said, word, left, failure) = ("Removed \(shown): this device is deregistered and the API token is deleted.", "removed", [], nil)
            handOver = true
        case .forced(let outcome, let rows, let deregistered):
            let why = Self.sentence(outcome.error ?? "the removal did not complete")
            let what = deregistered ? "this device is deregistered, but the pre-remove hook did not pass" : "this device could not be deregistered"
            (said, word, left, failure) = ("Removed \(shown) by force: the API token is deleted, although \(what): \(TerminalText.escaped(why)).", "forced", rows, nil)
            handOver = deregistered
        case .busy(_, let pid):
            (said, word, left) = (nil, "kept", [])
            failure = CommandFailure("\(account.name) is marked `removing`, but another gitbay-sync (pid \(pid)) is reconciling it right now: that process finishes the removal (or, if it stops first, `gitbay-sync run` does). It is no longer counted as signed in.", exitCode: .busy)
        case .interrupted(_, let reason):
            (said, word, left) = (nil, "kept", [])
            failure = CommandFailure("\(account.name) is not removed yet: \(reason). This device is deregistered; the account stays `removing` with its API token and is no longer counted as signed in. `gitbay-sync run` or `gitbay-sync remove-account \(account.name)` retries the removal (so does the timer, if installed).", exitCode: .unavailable)
        case .kept(_, let reason, let deregistered):
            (said, word, left) = (nil, "kept", [])
            let why = Self.sentence(reason)
            failure = deregistered
                ? CommandFailure("\(account.name) is not removed yet: this device is deregistered, but \(why). The account stays `removing` with its API token and is no longer counted as signed in. Fix the hook, then \(retry); or use --force to delete the token now.", exitCode: .unavailable)
                : CommandFailure("\(account.name) is not removed yet: \(why). It stays `removing` with its token and is no longer counted as signed in; \(retry), or use --force to delete it now.", exitCode: .unavailable)
            handOver = deregistered
        }
        // Another account of the instance may now hold the device token: hand it over now
        // rather than at the next run.
        var outcomes: [AccountOutcome] = []
        if handOver {
            let siblings = try await store.accounts().filter { $0.instance == account.instance && $0.state == .active }.map(\.id)
            if !siblings.isEmpty { outcomes = try await reconciler(store).reconcile(only: Set(siblings)) }
        }
        if global.json {
            printJSON(.object([
                ("account", .string(account.name)),
                ("result", .string(word)),
                ("rows_left", .array(left.map(JSONValue.int))),
                ("requests", .int(Self.removalRequests(result))),
                ("error", .optional(failure?.message ?? Self.removalError(result))),
                ("accounts", .array(outcomes.map(\.json))),
            ]))
        } else {
            if let said { context.console.out(said) }
            let taking: Set<AccountOutcome.Action> = [.added, .reAdded, .rotated, .adopted]
            for outcome in outcomes where outcome.condition == .registered && taking.contains(outcome.action) {
                context.console.out("\(escaped: outcome.account) takes over this device's token on \(account.instance).")
            }
        }
        if !left.isEmpty {
            context.console.err("Warning: \(shown) still has this device's row\(left.count == 1 ? "" : "s") \(left.map(String.init).joined(separator: ", ")) on \(account.instance), which may keep pushing here; remove \(left.count == 1 ? "it" : "them") on the instance's settings page.")
        }
        if let failure {
            context.console.err("Error: \(escaped: failure.message)")
        }
        let handedOver = report(outcomes)
        return failure?.exitCode ?? handedOver
    }

    /// A reason as the middle of a sentence: without the full stop it may end with.
    static func sentence(_ reason: String) -> String {
        reason.hasSuffix(".") ? String(reason.dropLast()) : reason
    }

    private static func removalRequests(_ result: AccountRemoval.Result) -> Int {
        switch result {
        case .removed(let outcome), .forced(let outcome, _, _), .busy(let outcome, _), .interrupted(let outcome, _), .kept(let outcome, _, _):
            outcome.requests
        }
    }

    /// What went wrong in a removal that still ended with the token deleted (`--force`).
    private static func removalError(_ result: AccountRemoval.Result) -> String? {
        if case .forced(let outcome, _, _) = result { return outcome.error }
        return nil
    }

    /// `pause` / `resume`: change what the account wants, then reconcile it (and the other
    /// accounts of its instance, which may take the device token over or give it back).
    func changeState(_ name: String, to state: AccountState) async throws -> ExitCode {
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        guard account.state != .removing else {
            throw CommandFailure("\(account.name) is being removed; finish with `gitbay-sync remove-account \(account.name)`", exitCode: .dataError)
        }
        try await store.setState(state, ofAccount: account.id)
        let siblings = try await store.accounts().filter { $0.instance == account.instance }.map(\.id)
        let outcomes = try await reconciler(store).reconcile(only: Set(siblings))
        let own = outcomes.first { $0.account == account.name }
        if global.json {
            printJSON(.object([
                ("account", .string(account.name)), ("state", .string(state.rawValue)), ("accounts", .array(outcomes.map(\.json))),
                ("ok", .bool(!outcomes.contains(where: \.isFailure))),
            ]))
        } else {
            context.console.out(state == .paused ? pausedText(account, own) : resumedText(account, own))
        }
        return report(outcomes)
    }

    /// What `pause` did: the account is paused here in any case; whether its row left the
    /// server depends on the server.
    private func pausedText(_ account: AccountRecord, _ outcome: AccountOutcome?) -> String {
        let name = TerminalText.escaped(account.name)
        let until = "until `gitbay-sync resume \(name)`"
        guard let outcome, outcome.action != .failed else {
            return "Paused \(name) here, but this device could not be deregistered on \(account.instance) (the error is below): it may get the account's pushes \(Self.untilRun)."
        }
        if outcome.action == .skipped {
            return "Paused \(name) here; \(outcome.reason ?? "it was not reconciled"), so this device is deregistered on \(account.instance) by that run \(Self.orNextRun). It stays paused \(until)."
        }
        return "Paused \(name): this device is deregistered on \(account.instance) and stays so \(until)."
    }

    private func resumedText(_ account: AccountRecord, _ outcome: AccountOutcome?) -> String {
        let name = TerminalText.escaped(account.name)
        guard let outcome, outcome.action != .failed else {
            return "Resumed \(name) here, but this device could not be registered on \(account.instance) (the error is below): it gets no pushes for the account \(Self.untilRun)."
        }
        switch outcome.condition {
        case .registered:
            return "Resumed \(name): this device is registered for it" + (outcome.deviceID.map { " (device \($0))" } ?? "") + "."
        case .shadowed:
            return "Resumed \(name): \(outcome.shadowedBy.map(TerminalText.escaped) ?? "another account") holds this device's token on \(account.instance), so \(name) is shadowed (`gitbay-sync prefer \(name)` moves the token to it)."
        case .noDeviceToken:
            return "Resumed \(name): no device token is set yet; `gitbay-sync device set-token` and then `gitbay-sync run` register it."
        default:
            return "Resumed \(name) (\(outcome.condition.rawValue))."
        }
    }

    /// How long what failed stays so, and what ends it.
    static let untilRun = "until `gitbay-sync run` gets through to the server (the timer runs it, if installed)"
    static let orNextRun = "(or by the next `gitbay-sync run`)"

    /// `prefer <account>`: make it the holder of the device token on its instance.
    func prefer(_ name: String) async throws -> ExitCode {
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        guard account.state != .removing else {
            throw CommandFailure("\(account.name) is being removed, so it cannot hold this device's token; finish with `gitbay-sync remove-account \(account.name)`", exitCode: .dataError)
        }
        try await store.prefer(accountID: account.id, on: account.instance)
        let siblings = try await store.accounts().filter { $0.instance == account.instance }.map(\.id)
        let outcomes = try await reconciler(store).reconcile(only: Set(siblings))
        if global.json {
            printJSON(.object([
                ("account", .string(account.name)), ("accounts", .array(outcomes.map(\.json))),
                ("ok", .bool(!outcomes.contains(where: \.isFailure))),
            ]))
        } else {
            context.console.out(preferredText(account, outcomes))
        }
        return report(outcomes)
    }

    /// What `prefer` did: the choice is stored in any case; whether the account holds the
    /// token now depends on its state and its server.
    private func preferredText(_ account: AccountRecord, _ outcomes: [AccountOutcome]) -> String {
        let name = TerminalText.escaped(account.name)
        let own = outcomes.first { $0.account == account.name }
        let holder = outcomes.first { $0.account != account.name && $0.condition == .registered }.map { TerminalText.escaped($0.account) }
        let preferred = "\(name) is now the preferred account on \(account.instance)"
        if own?.condition == .registered {
            return "\(name) now holds this device's token on \(account.instance)."
        }
        if account.state == .paused {
            let now = holder.map { "\($0) holds it meanwhile" } ?? "no account holds it meanwhile"
            return "\(preferred), but it is paused, so it cannot hold this device's token: \(now). `gitbay-sync resume \(name)` registers the device for it and moves the token to it."
        }
        guard let own else {
            return "\(preferred); it holds this device's token from the next `gitbay-sync run`."
        }
        switch own.condition {
        case .authFailed:
            return "\(preferred), but its API token was refused, so it cannot hold this device's token until you sign in again with `gitbay-sync login \(account.instance)`."
        case .noDeviceToken:
            return "\(preferred); no device token is set yet: it holds the token once one is set (`gitbay-sync device set-token`) and `gitbay-sync run` registers it."
        default:
            if own.action == .skipped {
                return "\(preferred); \(own.reason ?? "it was not reconciled"), and it holds this device's token after that run \(Self.orNextRun)."
            }
            return "\(preferred), but the token could not be moved to it yet (the error is below): it holds the token once `gitbay-sync run` gets through to the server (the timer runs it, if installed)."
        }
    }
}
