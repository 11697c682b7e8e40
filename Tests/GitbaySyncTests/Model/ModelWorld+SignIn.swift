import Foundation
import GitbayFake
import TestSupport

@testable import GitbayAPI
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// Sign-ins, in the three ways a person gets an account's API token to this device: a token
/// minted elsewhere and pasted, with the name `login --ssh` would give it or with none, or
/// `login --ssh` itself, through a real sshd before the instance (started at its first use).
extension ModelWorld {
    /// Signs account `index` in `via` one way. A sign-in of an account being signed out excuses
    /// the token it replaces; one of an account signed in leaves the token it replaces, when
    /// this install's, for its next run to revoke.
    func login(_ index: Int, via: ModelSignIn, crash: ModelCrash?) async throws {
        let (user, instance, _) = Self.users[index]
        let store = try await cli.store()
        let marker = try await store.device().installMarker
        let before = try await signedIn()[name(index)]
        let removingToken = if let before, before.state == .removing { try await storedTokens()[before.id] } else { Secret?.none }
        tokens.replacedBySignIn(removingToken)
        let minted = Set(servers[instance].tokens(of: user).filter { $0.name.contains(marker) }.map(\.value))
        // A sign-in runs the instance's accounts: one whose token is refused fails it.
        let refusedBeside = try await refusedAccounts().contains { $0 != index && Self.users[$0].1 == instance }
        let (configuration, crashSwitch) = client(crash)
        let (result, given) = try await signInCommand(index, via: via, marker: marker, client: configuration)
        let crashed = crashSwitch?.crashed ?? false
        if !crashed, result.code != 0, !(result.code == 1 && refusedBeside) {
            throw ModelViolation(step: -1, message: "login \(via) of \(user) failed (\(result.code)): \(result.err)")
        }
        let signedIn = (result.code == 0 || refusedBeside) && !crashed
        // Said "Signed in": a removal in progress (its own, or one a run is finishing) lost to
        // it, and the account stays signed in until a removal is asked for again.
        if signedIn { removalRequested.remove(index) }
        let account = try await self.signedIn()[name(index)]
        let stored = if let account { try await storedTokens()[account.id] } else { Secret?.none }
        if via == .ssh {
            // A mint whose sign-in stopped before storing it: this install's, recorded before the
            // mint; an account signed in already has it revoked by its next run, a first sign-in
            // by the next sign-in of its user.
            let orphans = servers[instance].tokens(of: user).filter {
                $0.name.contains(marker) && !minted.contains($0.value) && $0.value != stored?.exposedValue
            }
            if before?.state != .active { tokens.pendingMints(orphans.map { $0.value }, of: user) }
            // The token of an account being removed no longer works: its removal cannot revoke them.
            if let removingToken, !servers[instance].accepts(removingToken.exposedValue), account?.state != .active {
                tokens.unrevocableMints(orphans.map { $0.value })
            }
        }
        if signedIn { tokens.signedIn(user) }
        guard let account, account.state == .active else {
            if signedIn { throw ModelViolation(step: -1, message: "login of \(user) said it signed in, but the account is gone") }
            if let given { tokens.replacedBySignIn(Secret(given)) }
            return
        }
        removalRequested.remove(index)
        if let stored { apiTokens.insert(stored.exposedValue) }
        if let given, stored != Secret(given) {
            // The sign-in stopped before it stored the token: the model's, never given.
            tokens.replacedBySignIn(Secret(given))
        } else if let given, via == .named {
            try await recordExpiry(of: account, name: tokenName(of: given, user: user, instance: instance))
        }
        // A new account row is a new sign-in, and goes last.
        if accountIDs[index] != account.id {
            signInOrder.removeAll { $0 == index }
            signInOrder.append(index)
            accountIDs[index] = account.id
        }
    }

    /// Runs the sign-in; the token the model minted and gave it (none for `login --ssh`).
    private func signInCommand(_ index: Int, via: ModelSignIn, marker: String, client: ClientConfiguration) async throws -> (
        CLIResult, String?
    ) {
        let (user, instance, host) = Self.users[index]
        let server = "http://\(host):\(servers[instance].port)"
        // Without a keyring, the default: the token waits in the database for one.
        let place = session == nil ? [] : ["--token-store", Self.keyringUsers.contains(index) ? "keyring" : "database"]
        switch via {
        case .named:
            // Named as `login --ssh` names a token, with this install's marker, for 90 days.
            let tokenName = tokens.loginName(user, installMarker: marker)
            let token = servers[instance].mintToken(for: user, name: tokenName, lifetime: ModelTokens.lifetime)
            apiTokens.insert(token)
            return (await command(["login", server, "--token-name", tokenName] + place, stdin: token, client: client), token)
        case .pasted:
            // The user's own, made on the web and never expiring: its name is not this install's.
            let token = servers[instance].mintToken(for: user, name: tokens.pastedName(user))
            apiTokens.insert(token)
            return (await command(["login", server] + place, stdin: token, client: client), token)
        case .ssh:
            let front = try await front(instance)
            // The front logs in `git`, as gitbay does, or (without nss_wrapper) the account running the tests.
            let destination = front.loginUser == "git" ? [] : ["\(front.loginUser)@\(host)"]
            let ssh = [SSHProgram.variable: front.commandLine(for: user)]
            return (await command(["login", server, "--ssh"] + destination + place, client: client, environment: ssh), nil)
        }
    }

    /// The sshd before `instance`, started with a key for each of its users the first time.
    private func front(_ instance: Int) async throws -> SSHFront {
        if let front = fronts[instance] { return front }
        let users = Self.users.filter { $0.1 == instance }.map(\.0)
        let front = try await SSHFront.start(fakePort: servers[instance].port, users: users)
        fronts[instance] = front
        return front
    }

    private func tokenName(of token: String, user: String, instance: Int) -> String {
        servers[instance].tokens(of: user).first { $0.value == token }?.name ?? ""
    }

    /// Records the expiry and lifetime of a pasted token named as `login --ssh` names one, as
    /// `login --ssh` records them.
    private func recordExpiry(of account: AccountRecord, name: String) async throws {
        let expiresAt = Date(
            timeIntervalSinceReferenceDate: (Date().timeIntervalSinceReferenceDate + clockAhead + ModelTokens.lifetime.inSeconds - 1).rounded(
                .down))
        try await cli.store().access { database in
            try database.run(
                "UPDATE api_tokens SET expires_at = ?, lifetime_seconds = ? WHERE account_id = ? AND name = ?",
                .text(Timestamp.format(expiresAt)), .integer(ModelTokens.lifetime.components.seconds), .integer(account.id), .text(name))
        }
    }
}
