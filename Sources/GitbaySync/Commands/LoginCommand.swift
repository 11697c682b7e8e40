import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `login <instance-url>`.
struct LoginCommand: CommandDefinition {
    static let instanceURL = CommandSpec.Argument(
        name: "instance-url", optional: false, help: "The instance, e.g. https://gitbay.org (plain http only for loopback).")

    static let sendsRequests = true

    static let spec = CommandSpec(
        words: ["login"], group: .accounts, arguments: [instanceURL], options: [], summary: "Sign in to an account with an API token.",
        discussion: """
            Reads a full-scope API token on stdin (or asks for it without echo on a terminal), at
            most 1 KiB of printable ASCII, checks it with `whoami`, and stores the account as
            user@host. Mint a token with `ssh git@HOST token create --name gitbay-sync --scope full`,
            HOST the instance's host. When a device token is set, the new account is registered at
            once. A failed sign-in stores nothing.
            """,
        examples: [
            .init("Sign in on gitbay.org; the API token is asked for without echo", ["login", "https://gitbay.org"]),
            .init(
                "Sign in with a token a script holds, read on standard input", ["login", "https://gitbay.example.com"],
                before: "printf %s \"$GITBAY_TOKEN\" |"),
            .init("Sign in on a test instance on this machine (plain http is for loopback only)", ["login", "http://127.0.0.1:3000"]),
        ]
    )

    let instance: String

    init(instance: String) {
        self.instance = instance
    }

    init(_ input: CommandInput) throws(UsageError) {
        instance = try input.required(Self.instanceURL)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.login(instance)
    }
}

extension CommandRunner {
    /// `login <instance-url>`: verify the token (whoami, then a write refused as incomplete,
    /// to prove the scope), store the account, and register the device when a token is set.
    fileprivate func login(_ instanceText: String) async throws -> ExitCode {
        let instance: InstanceURL
        do {
            instance = try InstanceURL(parsing: instanceText)
        } catch {
            throw CommandFailure(error.description, exitCode: .dataError)
        }
        let tokenText = try readSecret(prompt: Self.tokenPrompt(for: instance), limit: .apiToken)
        try Self.checkAPIToken(tokenText)
        let apiToken = Secret(tokenText)
        // A database already there is opened (and so checked) before any server is called; a
        // missing one is created only once the token is proven, so a refused login leaves none.
        let existing = location.databaseExists ? try await openStore() : nil
        do {
            if let twin = try await SyncEngine.signedInTwice(in: existing, instance: instance, username: nil, apiToken: apiToken) {
                throw SyncEngine.SignInFailure.alreadySignedIn(as: twin)
            }
            let client = GitbayClient(
                instance: instance, apiToken: apiToken, accountName: "\(instance.authority)", configuration: context.client, logger: logger)
            let username = try await SyncEngine.verifiedUsername(client)
            let store = if let existing { existing } else { try await openStore() }
            let signedIn = try await engine(store).signIn(instance: instance, username: username, apiToken: apiToken)
            show(Self.signedInOutput(signedIn, instance: instance))
            return signedIn.outcomes.isEmpty ? .success : report(signedIn.outcomes)
        } catch let failure as SyncEngine.SignInFailure {
            throw Self.loginFailure(failure, instance: instance)
        }
    }

    /// What the hidden prompt says before it asks: where a token comes from.
    static func tokenPrompt(for instance: InstanceURL) -> String {
        "Paste a full-scope API token for \(instance). Mint one with `\(TokenMinting.command(for: instance))`.\nAPI token (input hidden): "
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

    /// What `login` prints.
    private static func signedInOutput(_ signedIn: SyncEngine.SignedIn, instance: InstanceURL) -> ReconciledOutput {
        let account = signedIn.account
        var text = ["Signed in as \(escaped: account.name)."]
        if !signedIn.deviceTokenSet {
            text.append("No device token is set yet: set one with `gitbay-sync device set-token`, then `gitbay-sync run`.")
        }
        return ReconciledOutput(
            fields: [("account", .string(account.name)), ("instance", .string(instance.description)), ("username", .string(account.username))],
            outcomes: signedIn.outcomes, text: text)
    }
}
