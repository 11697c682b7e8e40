import GitbayState
import PushResolve

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `resolve`.
struct ResolveCommand: PlainCommand {
    static let spec = CommandSpec(
        words: ["resolve"], group: .lookingAround, arguments: [], options: [],
        summary: "Tell which account a push payload (on stdin) belongs to, and where it points.",
        discussion: """
            Matches the payload's instance and user to a signed-in account and prints the web URL
            to open. The payload is read on stdin, at most \(InputLimit.pushPayload.maximumBytes) bytes (what APNs delivers).
            """,
        examples: [
            .init("Which account a push that arrived is for, and the page to open", ["resolve"], after: "< payload.json")
        ]
    )

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.resolve()
    }
}

extension CommandRunner {
    /// `resolve`: which signed-in account a push payload (on stdin) belongs to, and the screen
    /// it points at. Reads the state database only: no network.
    fileprivate func resolve() async throws -> ExitCode {
        if context.console.inputIsTerminal {
            context.console.err("Reading a push payload on stdin (end it with Ctrl-D)…")
        }
        let text = try readInput(limit: .pushPayload)
        let payload: PushPayload
        do {
            payload = try PushPayload(decoding: text)
        } catch {
            throw CommandFailure(error.description, exitCode: .dataError)
        }
        let store = try await openExistingStore()
        let account = try await signedInAccount(for: payload, in: store)
        show(ResolvedOutput(account: account, payload: payload))
        return .success
    }

    /// The signed-in account the payload is for.
    private func signedInAccount(for payload: PushPayload, in store: StateStore) async throws -> AccountRecord {
        let accounts = try await store.accounts()
        guard let account = payload.account(among: accounts) else {
            let signedIn = accounts.filter { $0.state != .removing }.map(\.name)
            let known = signedIn.isEmpty ? "no account is signed in" : "signed in: \(signedIn.joined(separator: ", "))"
            throw CommandFailure(
                "the push is for \(AccountRecord.name(username: payload.user, instance: payload.instance)), which is not signed in here (\(known))",
                exitCode: .noSuchAccount
            )
        }
        return account
    }
}

/// What `resolve` prints: the account and where the push points.
struct ResolvedOutput: CommandOutput {
    let account: AccountRecord
    let payload: PushPayload

    var json: JSONValue {
        .object([
            ("account", .string(account.name)),
            ("instance", .string(account.instance.description)),
            ("user", .string(account.username)),
            ("state", .string(account.state.rawValue)),
            ("path", .string(payload.path)),
            ("badge", .int(payload.badge)),
            (
                "destination",
                payload.destination.map { destination in
                    .object([
                        ("kind", .string(destination.kind.rawValue)),
                        ("repository", .string(destination.repositoryPath)),
                        ("number", .int(destination.number)),
                        ("url", .string(destination.webURL(on: account.instance))),
                    ])
                } ?? .null
            ),
        ])
    }

    var text: [String] {
        var lines = ["account: \(escaped: account.name)" + (account.state == .active ? "" : " (\(account.state.rawValue))")]
        if let destination = payload.destination {
            lines += [
                "kind: \(destination.kind.rawValue)",
                "repository: \(destination.repositoryPath)",
                "number: \(destination.number)",
                "url: \(destination.webURL(on: account.instance))",
            ]
        } else {
            lines.append("destination: none (the app has no screen for the path '\(escaped: payload.path)')")
        }
        lines.append("badge: \(payload.badge)")
        return lines
    }
}
