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

    /// `remove-account <account> [--force]`.
    func removeAccount(_ name: String, force: Bool) async throws -> ExitCode {
        let store = try await openStore()
        let account = try await account(named: name, in: store)
        try await store.setState(.removing, ofAccount: account.id)
        let removing = try await store.account(id: account.id) ?? account
        let result = try await removal(store).finish(removing, force: force)
        switch result {
        case .removed(let outcome):
            if global.json { printJSON(removalJSON(outcome, result: "removed", rowsLeft: [])) } else {
                context.console.out("Removed \(escaped: account.name): this device is deregistered and the API token is deleted.")
            }
            return .success
        case .forced(let outcome, let left):
            if global.json { printJSON(removalJSON(outcome, result: "forced", rowsLeft: left)) } else {
                context.console.out("Removed \(escaped: account.name) by force: the API token is deleted.")
            }
            if !left.isEmpty {
                context.console.err("Warning: \(escaped: account.name) still has this device's row\(left.count == 1 ? "" : "s") \(left.map(String.init).joined(separator: ", ")) on \(account.instance), which may keep pushing here; remove \(left.count == 1 ? "it" : "them") on the instance's settings page.")
            }
            return .success
        case .busy(let outcome, let pid):
            if global.json { printJSON(removalJSON(outcome, result: "kept", rowsLeft: [])) }
            throw CommandFailure("\(account.name) is marked `removing`, but another gitbay-sync (pid \(pid)) is reconciling it right now: that run finishes the removal, or the next one does. It is no longer counted as signed in.", exitCode: .busy)
        case .interrupted(let outcome, let reason):
            if global.json { printJSON(removalJSON(outcome, result: "kept", rowsLeft: [])) }
            throw CommandFailure("\(account.name) is not removed yet: \(reason). It stays `removing` with its API token, is no longer counted as signed in, and the next `gitbay-sync run` (or `remove-account`) retries the removal.", exitCode: .unavailable)
        case .kept(let outcome, let reason):
            if global.json { printJSON(removalJSON(outcome, result: "kept", rowsLeft: [])) }
            let said = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
            throw CommandFailure("\(account.name) is not removed yet: \(said). It stays `removing` with its token, is no longer counted as signed in, and runs retry it (after a backoff when the server failed; `gitbay-sync run --now` at once); use --force to delete it now.", exitCode: .unavailable)
        }
    }

    private func removalJSON(_ outcome: AccountOutcome, result: String, rowsLeft: [Int]) -> JSONValue {
        .object([
            ("account", .string(outcome.account)),
            ("result", .string(result)),
            ("rows_left", .array(rowsLeft.map(JSONValue.int))),
            ("requests", .int(outcome.requests)),
            ("error", .optional(outcome.error)),
        ])
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
