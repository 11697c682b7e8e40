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
    /// `login <instance-url> --ssh [<ssh-destination>]`: mints a full-scope token over SSH,
    /// then signs in with it as with a pasted one. Everything that can be checked is checked
    /// before ssh runs (the destination, `$GITBAY_SYNC_SSH`, the program, the database); a
    /// sign-in that fails once the token is minted revokes it again, so nothing is left.
    func loginOverSSH(_ instance: InstanceURL, _ mint: LoginCommand.Mint, tokenName: String?, choice: TokenStoreChoice?) async throws -> ExitCode {
        let destination: SSHDestination
        do {
            destination =
                try mint.destination.map { text throws(SSHDestination.Malformed) in try SSHDestination(parsing: text) }
                ?? .default(for: instance)
        } catch {
            throw CommandFailure("\(error); nothing was stored.", exitCode: .dataError)
        }
        let program = try SSHProgram.resolve(environment: context.environment).mapError(Self.programFailure).get()
        let existing = location.databaseExists ? try await openStore() : nil
        let device = try await existing?.device()
        let installMarker = device?.installMarker ?? DeviceDefaults.newInstallMarker()
        let forInstall = TokenName.forInstall(label: device?.label ?? DeviceDefaults.hostLabel(), installMarker: installMarker)
        // Signed in to that server already: the install's name is taken there, so this one is told apart by the time.
        let signedInThere = try await existing?.accounts(onServerOf: instance) ?? []
        let name = tokenName ?? (signedInThere.isEmpty ? forInstall : TokenRotation.successorName(of: forInstall, at: context.now()))
        let minting = SSHTokenMint(program: program, destination: destination, name: name, lifetime: mint.lifetime)
        let startedAt = context.now()
        // Recorded before the mint, under each account of that server (the key's user is not
        // known until the token answers `whoami`): a login killed between the mint and the
        // sign-in leaves a name that account's next run revokes. The sign-in forgets it.
        let recorded = try await recordMint(name, signedInThere, existing, at: startedAt)
        logger.info("login.ssh.mint", ["ssh.destination": destination.description, "token.name": name, "token.ttl": mint.lifetime.text])
        progress("minting the API token \(name) over ssh \(destination) (token create) …")
        let minted: MintedToken
        switch await minting.run(environment: context.environment, timeout: context.sshTimeout, shutdown: context.shutdown) {
        case .success(let token): minted = token
        case .failure(let failure):
            if !failure.mayHaveMinted { await forgetMint(name, recorded, existing) }
            throw Self.mintFailure(failure, minting, instance: instance)
        }
        // Its expiry is the server's, asked for once the token is checked.
        let details = APITokenDetails(name: name, lifetime: mint.lifetime.duration)
        do {
            try Self.checkAPIToken(minted.token.exposedValue)
            let code = try await signIn(
                instance, apiToken: minted.token, details: details, choice: choice, existing: existing, installMarker: installMarker,
                sshDestination: destination)
            await forgetMint(name, recorded, existing)
            return code
        } catch {
            let undone = await revoke(minted.token, minting, instance: instance)
            if undone.revoked { await forgetMint(name, recorded, existing) }
            let (code, message, _) = GitbaySyncCLI.classify(error)
            throw CommandFailure("\(message) \(undone.said)", exitCode: code)
        }
    }

    /// Records `name`, about to be minted, as a stale token name of each of `accounts` but one
    /// whose current token has that name; returns those it was recorded for.
    private func recordMint(_ name: String, _ accounts: [AccountRecord], _ store: StateStore?, at now: Date) async throws -> [AccountRecord] {
        guard let store, !accounts.isEmpty else { return [] }
        let records = try await store.apiTokenRecords()
        // Never the name of an account's current token (a --token-name given again, which the server refuses).
        let recorded = accounts.filter { records[$0.id]?.details.name != name }
        for account in recorded { try await store.recordStaleTokenNames([name], ofAccount: account.id, now: now) }
        return recorded
    }

    /// Forgets `name` as a stale name of `accounts`, except where a keyring item of it is left
    /// to delete; the account whose current token it became forgot it when signing in.
    private func forgetMint(_ name: String, _ accounts: [AccountRecord], _ store: StateStore?) async {
        guard let store, !accounts.isEmpty else { return }
        let records = (try? await store.apiTokenRecords()) ?? [:]
        for account in accounts where records[account.id]?.details.name != name {
            try? await store.forgetStaleTokenNames([name], ofAccount: account.id, keepingItems: true)
        }
    }

    /// Revokes a token minted for a sign-in that failed, with the token itself (a full-scope
    /// token may revoke itself); says how it went, and how to revoke it by hand if need be.
    private func revoke(_ token: Secret, _ minting: SSHTokenMint, instance: InstanceURL) async -> (revoked: Bool, said: String) {
        let client = GitbayClient(
            instance: instance, apiToken: token, accountName: "\(instance.authority)", configuration: context.client, logger: logger)
        do {
            try await client.revokeToken(named: minting.name)
            return (true, "The token \(minting.name) minted for it was revoked again.")
        } catch {
            logger.info("login.ssh.revoke-failed", ["token.name": minting.name, "error": "\(error)"])
            return (
                false,
                "The token \(minting.name) minted for it could not be revoked: revoke it with `\(minting.destination.command(["token", "revoke", minting.name]))`."
            )
        }
    }
}
