import FoundationEssentials

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
        let tokenText = try readSecret(prompt: "API token for \(instance) (input hidden): ", what: "API token")
        guard !tokenText.contains(where: \.isWhitespace) else {
            throw CommandFailure("the API token contains spaces; paste the token alone (it looks like gb_…)", exitCode: .dataError)
        }
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

    /// `remove-account <account> [--force]`. When the device was deregistered,
    /// the instance's other accounts are reconciled at once, so that one of them takes over the
    /// device token if the removed account held it.
    func removeAccount(_ name: String, force: Bool) async throws -> ExitCode {
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        try await store.setState(.removing, ofAccount: account.id)
        let removing = try await store.account(id: account.id) ?? account
        let result = try await removal(store).finish(removing, force: force)
        let shown = TerminalText.escaped(account.name)
        let retry = "`gitbay-sync run` retries the removal (so does the timer, if installed)"
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

    /// `pause` / `resume`: change what the account wants, then reconcile it.
    func changeState(_ name: String, to state: AccountState) async throws -> ExitCode {
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        guard account.state != .removing else {
            throw CommandFailure("\(account.name) is being removed; finish with `gitbay-sync remove-account \(account.name)`", exitCode: .dataError)
        }
        try await store.setState(state, ofAccount: account.id)
        let siblings = try await store.accounts().filter { $0.instance == account.instance }.map(\.id)
        let outcomes = try await reconciler(store).reconcile(only: Set(siblings))
        if global.json {
            printJSON(.object([("account", .string(account.name)), ("state", .string(state.rawValue)), ("accounts", .array(outcomes.map(\.json)))]))
        } else {
            context.console.out(state == .paused
                ? "Paused \(escaped: account.name): this device is not registered for it until `gitbay-sync resume \(escaped: account.name)`."
                : "Resumed \(escaped: account.name).")
        }
        return report(outcomes)
    }

    /// `prefer <account>`: make it the holder of the device token on its instance.
    func prefer(_ name: String) async throws -> ExitCode {
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        try await store.prefer(accountID: account.id, on: account.instance)
        let siblings = try await store.accounts().filter { $0.instance == account.instance }.map(\.id)
        let outcomes = try await reconciler(store).reconcile(only: Set(siblings))
        if global.json {
            printJSON(.object([("account", .string(account.name)), ("accounts", .array(outcomes.map(\.json)))]))
        } else {
            context.console.out("\(escaped: account.name) now holds this device's token on \(account.instance).")
        }
        return report(outcomes)
    }
}
