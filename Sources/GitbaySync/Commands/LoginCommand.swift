import GitbayAPI
import GitbayKeyring
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `login <instance-url> [--ssh [<ssh-destination>]]`.
struct LoginCommand: CommandDefinition {
    static let instanceURL = CommandSpec.Argument(
        name: "instance-url", optional: false,
        help: "The instance, e.g. https://gitbay.org, or gitbay.org for https (plain http only for loopback).")
    static let sshDestination = CommandSpec.Argument(
        name: "ssh-destination", optional: true,
        help: "With --ssh: where the instance serves SSH, user@host or user@host:port (default git@ and the instance's host).")
    static let ssh = CommandSpec.Option(
        name: "--ssh", valueName: nil, help: "Mint a full-scope token over SSH with your SSH key, as gitbay's own CLI does, instead of reading one.")
    static let ttl = CommandSpec.Option(
        name: "--ttl", valueName: "DURATION",
        help: "With --ssh: how long the minted token works, as the server takes it: 90d, 720h, 1h30m (default 90d, at least 1h).")
    static let tokenName = CommandSpec.Option(
        name: "--token-name", valueName: "NAME",
        help:
            "The token's name on the server, kept with the account: the name to mint with --ssh (default gitbay-sync-<label>-<install marker>), or a pasted token's."
    )

    static let tokenStore = CommandSpec.Option(
        name: "--token-store", valueName: "keyring|database",
        help:
            "Where to keep the API token: the OS keyring (or store nothing when none answers), or the database (default: the keyring when one answers)."
    )

    static let sendsRequests = true

    static let spec = CommandSpec(
        words: ["login"], group: .accounts, arguments: [instanceURL, sshDestination], options: [ssh, ttl, tokenName, tokenStore],
        summary: "Sign in to an account with an API token.",
        discussion: """
            Reads a full-scope API token on stdin (or asks for it without echo on a terminal), at
            most 1 KiB of printable ASCII, checks it with `whoami`, and stores the account as
            user@host. Mint a token with `ssh git@HOST token create --name gitbay-sync --scope full`,
            HOST the instance's host; `--token-name` records the name you gave it.

            With `--ssh`, gitbay-sync mints its own token instead, reading nothing on stdin: it
            runs `ssh git@HOST -- token create --name <name> --scope full --ttl <lifetime> --json`
            with your SSH key, HOST the instance's host unless <ssh-destination> names another
            (a :port becomes `-p port`). The name is `gitbay-sync-<label>-<install marker>`, so
            the server's `token list` tells this install's token from the others; signed in to
            that server already, the name ends in `-r` and the time, as a rotation's does, and the
            next run revokes the token it replaces. The ssh
            program is `$GITBAY_SYNC_SSH` when set, a command line read as a shell reads words
            (quotes, no expansion; no shell runs it), else `ssh` on PATH; it has 60 seconds.
            The token is never printed; its name and expiry are kept with the account.

            The token is kept in the OS keyring where one answers (the Secret Service: gnome-keyring,
            KeePassXC, KWallet; the login Keychain on macOS), and the database keeps only a reference.
            Where none answers (no session bus, a locked keyring), it is kept in the database, and
            login says so. `--token-store keyring` refuses to sign in without the keyring (exit 69,
            nothing stored); `--token-store database` keeps it in the database.

            When a device token is set, the new account is registered at once. A failed sign-in
            stores nothing (a token minted for it is revoked again).
            """,
        examples: [
            .init("Sign in on gitbay.org; the API token is asked for without echo", ["login", "https://gitbay.org"]),
            .init(
                "Sign in with a token a script holds, read on standard input", ["login", "https://gitbay.example.com"],
                before: "printf %s \"$GITBAY_TOKEN\" |"),
            .init("Let gitbay-sync mint its own token over SSH as git@gitbay.org, good for 90 days", ["login", "https://gitbay.org", "--ssh"]),
            .init(
                "Mint over SSH on another host and port, good for 30 days, with a key of its own",
                ["login", "https://gitbay.example.com", "--ssh", "git@ssh.gitbay.example.com:2222", "--ttl", "30d"],
                before: "GITBAY_SYNC_SSH='ssh -i ~/.ssh/gitbay_key'"),
            .init("Sign in on a test instance on this machine (plain http is for loopback only)", ["login", "http://127.0.0.1:3000"]),
        ]
    )

    /// What `--ssh` asks for: where to mint the token and how long it works.
    struct Mint: Sendable, Equatable {
        /// As written after `--ssh`; nil for `git@` and the instance's host.
        var destination: String?
        var lifetime: TokenLifetime = .standard
    }

    let instance: String
    /// Nil: the token is read on stdin.
    let mint: Mint?
    let tokenName: String?
    /// Nil: the keyring when one answers, else the database.
    let tokenStore: TokenStoreChoice?

    init(instance: String, mint: Mint? = nil, tokenName: String? = nil, tokenStore: TokenStoreChoice? = nil) {
        self.instance = instance
        self.mint = mint
        self.tokenName = tokenName
        self.tokenStore = tokenStore
    }

    init(_ input: CommandInput) throws(UsageError) {
        instance = try input.required(Self.instanceURL)
        tokenName = try input.value(Self.tokenName, TokenName.option)
        tokenStore = try input.value(Self.tokenStore) { text throws(UsageError) in
            guard let choice = TokenStoreChoice(rawValue: text) else {
                throw UsageError("invalid value for --token-store: '\(text)'; it is keyring or database")
            }
            return choice
        }
        let lifetime = try input.value(Self.ttl, TokenLifetime.option)
        let destination = input.value(Self.sshDestination)
        if input.isSet(Self.ssh) {
            mint = Mint(destination: destination, lifetime: lifetime ?? .standard)
            return
        }
        if lifetime != nil { throw input.error("--ttl is for --ssh: a pasted token works for as long as it was minted for") }
        if let destination {
            throw input.error("unexpected argument '\(destination)' for 'login': an SSH destination follows --ssh")
        }
        mint = nil
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.login(self)
    }
}

extension CommandRunner {
    /// What the user typed, `https://` before it when it names no scheme (`gitbay.example.com`).
    static func withScheme(_ text: String) -> String {
        text.contains("://") ? text : "https://" + text.trimmingWhitespace()
    }

    /// `login <instance-url>`: read the token (or mint one over SSH), verify it (whoami, then
    /// a write refused as incomplete, to prove the scope), store the account, and register the
    /// device when a token is set.
    fileprivate func login(_ command: LoginCommand) async throws -> ExitCode {
        let instance: InstanceURL
        do {
            instance = try InstanceURL(parsing: Self.withScheme(command.instance))
        } catch {
            throw CommandFailure(error.description, exitCode: .dataError)
        }
        if let mint = command.mint { return try await loginOverSSH(instance, mint, tokenName: command.tokenName, choice: command.tokenStore) }
        let tokenText = try readSecret(prompt: Self.tokenPrompt(for: instance), limit: .apiToken)
        try Self.checkAPIToken(tokenText)
        let apiToken = Secret(tokenText)
        // A database already there is opened (and so checked) before any server is called; a
        // missing one is created only once the token is proven, so a refused login leaves none.
        let existing = location.databaseExists ? try await openStore() : nil
        if let twin = try await SyncEngine.signedInTwice(in: existing, keyring: keyring, instance: instance, username: nil, apiToken: apiToken) {
            throw Self.loginFailure(.alreadySignedIn(as: twin), instance: instance)
        }
        return try await signIn(
            instance, apiToken: apiToken, details: APITokenDetails(name: command.tokenName), choice: command.tokenStore, existing: existing)
    }

    /// What the hidden prompt says before it asks: where a token comes from.
    static func tokenPrompt(for instance: InstanceURL) -> String {
        "Paste a full-scope API token for \(instance). Mint one with `\(TokenMinting.command(for: instance))`, "
            + "or let gitbay-sync mint its own with `\(ShellWords.gitbaySync("login", instance, "--ssh"))`.\nAPI token (input hidden): "
    }

    /// Checks `apiToken` with the server, stores the account with `details` (and the SSH
    /// destination the token was minted over, if it was), and prints the sign-in. `existing`
    /// is the database opened before any server was called; when there was none, one is
    /// created only now, its device row given `installMarker` when set.
    func signIn(
        _ instance: InstanceURL, apiToken: Secret, details: APITokenDetails, choice: TokenStoreChoice?, existing: StateStore?,
        installMarker: String? = nil, sshDestination: SSHDestination? = nil
    ) async throws -> ExitCode {
        do {
            let client = GitbayClient(
                instance: instance, apiToken: apiToken, accountName: "\(instance.authority)", configuration: context.client, logger: logger)
            progress("checking the API token with \(instance): whoami, and whether it may register devices …")
            let username = try await SyncEngine.verifiedUsername(client)
            var details = details
            if let name = details.name, details.lifetime != nil {
                // What the server answers, never this machine's clock plus the lifetime.
                details.expiresAt = await SyncEngine.serverExpiry(of: name, client)
            }
            if existing == nil, choice == .keyring {
                // A keyring that does not answer stores nothing: not even the database file.
                do throws(KeyringUnavailable) {
                    _ = try await keyring.readAll()
                } catch {
                    throw SyncEngine.SignInFailure.keyringUnavailable(error)
                }
            }
            let store = if let existing { existing } else { try await openStore() }
            let device = try await store.device(installMarker: installMarker)
            let before = try await store.accounts()
            if device.token != nil { progress("signed in as \(escaped: username); registering this device with \(instance) …") }
            let signedIn = try await engine(store).signIn(
                instance: instance, username: username, apiToken: apiToken, details: details, choice: choice,
                waiting: { [self] pid in
                    progress(
                        "waiting for gitbay-sync (pid \(pid)), which is reconciling \(escaped: AccountRecord.name(username: username, instance: instance)), at most \(SyncEngine.signInLeaseWait.shortDescription) …"
                    )
                })
            if let sshDestination { try await store.setSSHDestination(sshDestination.description, ofAccount: signedIn.account.id) }
            // Names a login minted under before it knew the account (one stopped after the mint) become this account's to revoke.
            try await store.adoptPendingMints(instance: instance, ofAccount: signedIn.account.id, current: details.name, now: context.now())
            let outcomes = worded(signedIn.outcomes)
            let warnings = LoginWarnings(account: signedIn.account, before: before, outcomes: outcomes, tokenName: details.name)
            var output = Self.signedInOutput(
                signedIn, outcomes: outcomes, instance: instance, details: details, choice: choice, warnings: warnings, now: context.now())
            output.text = TextLayout.fitted(output.text, width: textWidth)
            show(output)
            return outcomes.isEmpty ? .success : report(outcomes)
        } catch let failure as SyncEngine.SignInFailure {
            throw Self.loginFailure(failure, instance: instance)
        }
    }

    /// What `login` prints.
    private static func signedInOutput(
        _ signedIn: SyncEngine.SignedIn, outcomes: [SaidOutcome], instance: InstanceURL, details: APITokenDetails,
        choice: TokenStoreChoice?, warnings: LoginWarnings, now: Date
    ) -> ReconciledOutput {
        let account = signedIn.account
        var text = ["Signed in as \(escaped: account.name)."]
        if let name = details.name, let expiresAt = details.expiresAt {
            text.append("Its API token, \(escaped: name), expires \(RelativeTime.said(expiresAt, now: now)); `gitbay-sync status` shows it.")
        }
        text.append(KeyringText.kept(signedIn.kept, choice: choice))
        if !signedIn.deviceTokenSet {
            text.append("No device token is set yet: set one with `gitbay-sync device set-token`, then `gitbay-sync run`.")
        }
        text += warnings.lines
        return ReconciledOutput(
            fields: [("account", .string(account.name)), ("instance", .string(instance.description)), ("username", .string(account.username))],
            outcomes: outcomes, text: text,
            laterFields: [
                ("token_name", .optional(details.name)), ("token_expires_at", .optional(details.expiresAt)),
                ("token_store", .string(signedIn.kept.place == .keyring ? "keyring" : "database")),
                ("keyring_unavailable", .optional(signedIn.kept.keyringUnavailable.map(\.description))),
                ("replaced_token", .bool(warnings.replacedToken)), ("shadowed", .bool(warnings.shadowed != nil)),
            ])
    }
}
