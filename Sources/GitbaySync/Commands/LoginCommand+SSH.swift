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
        let made = location.databaseExists ? nil : location
        // The name is recorded before the mint, so the database is made now if need be; a
        // login that fails with nothing to record removes it again.
        let existing = try await openStore()
        let device = try await existing.device()
        let (name, signedInThere) = try await mintName(tokenName, device: device, instance: instance, store: existing)
        let minting = SSHTokenMint(program: program, destination: destination, name: name, lifetime: mint.lifetime)
        let record = try await recordMint(minting, signedInThere, existing, instance: instance, installMarker: device.installMarker, made: made)
        logger.info("login.ssh.mint", ["ssh.destination": destination.description, "token.name": name, "token.ttl": mint.lifetime.text])
        progress("minting the API token \(name) over ssh \(destination) (token create) …")
        let minted = try await mintToken(minting, record, instance: instance)
        // Its expiry is the server's, asked for once the token is checked.
        let details = APITokenDetails(name: name, lifetime: mint.lifetime.duration)
        do {
            try Self.checkAPIToken(minted.token.exposedValue)
            let code = try await signIn(
                instance, apiToken: minted.token, details: details, choice: choice, existing: existing, installMarker: device.installMarker,
                sshDestination: destination)
            // The sign-in took a pending name as its own, or as its account's to revoke.
            await forgetMint(name, record.accounts, existing)
            return code
        } catch {
            let undone = await revoke(minted.token, minting, instance: instance)
            if undone.revoked { await forget(record) }
            let (code, message, _) = GitbaySyncCLI.classify(error)
            throw CommandFailure("\(message) \(undone.said)", exitCode: code)
        }
    }

    /// The name to mint under: `tokenName`, else the install's, told apart by the time when
    /// that is taken on the server (an account signed in there already, or a login there
    /// stopped after its mint), a second later while the name is one recorded there already (a
    /// login within the second of another's mint). Also the accounts signed in on that server.
    private func mintName(
        _ tokenName: String?, device: DeviceRecord, instance: InstanceURL, store: StateStore
    ) async throws -> (String, [AccountRecord]) {
        let forInstall = TokenName.forInstall(label: device.label, installMarker: device.installMarker)
        let signedInThere = try await store.accounts(onServerOf: instance)
        let earlier = try await store.pendingMints(instance: instance)
        if let tokenName { return (tokenName, signedInThere) }
        guard !signedInThere.isEmpty || !earlier.isEmpty else { return (forInstall, signedInThere) }
        let records = try await store.apiTokenRecords()
        let recorded = Set(earlier + signedInThere.flatMap { [records[$0.id]?.details.name].compactMap { $0 } + (records[$0.id]?.staleNames ?? []) })
        var instant = context.now()
        while recorded.contains(TokenRotation.successorName(of: forInstall, at: instant)) { instant += 1 }
        return (TokenRotation.successorName(of: forInstall, at: instant), signedInThere)
    }

    /// Runs ssh to mint the token. A Ctrl-C meanwhile (at its passphrase prompt, most often)
    /// is a request to stop the mint, not the end of the process: the login says what it was
    /// and ends by the signal. A failure forgets the name unless the server may have minted
    /// all the same.
    private func mintToken(_ minting: SSHTokenMint, _ record: MintRecord, instance: InstanceURL) async throws -> MintedToken {
        let shutdown = context.shutdown
        let environment = context.environment, timeout = context.sshTimeout
        switch await shutdown.handlingRequests({ await minting.run(environment: environment, timeout: timeout, shutdown: shutdown) }) {
        case .success(let token):
            return token
        case .failure(let failure):
            let said = Self.mintFailure(failure, minting, instance: instance)
            guard !failure.mayHaveMinted else {
                throw CommandFailure(record.kept.map { "\(said.message) \($0)" } ?? said.message, exitCode: said.exitCode)
            }
            await forget(record)
            guard failure == .interrupted else { throw said }
            context.console.err(journalErr.line(.error, "Error: \(said.message)"))
            throw StoppedBySignal(signal: shutdown.stopSignal ?? SIGINT)
        }
    }

    /// Where a mint's name was recorded before the mint: under the accounts of its server, and
    /// as pending for the server.
    private struct MintRecord {
        let name: String
        let accounts: [AccountRecord]
        let store: StateStore
        let pending: PendingMint
        /// The database, when this login made it.
        let made: StateLocation?
        /// What a failed login that may have minted says of the name kept; nil when none is.
        let kept: String?
    }

    /// Records the name about to be minted, under each account of that server and as pending
    /// for the server: the key's user is not known until the token answers `whoami`, and may be
    /// none of those accounts'. A login killed between the mint and the sign-in leaves a name
    /// that a run of its user's account revokes (its own, or the next one signed in there, which
    /// adopts the pending name). The sign-in forgets it.
    private func recordMint(
        _ minting: SSHTokenMint, _ accounts: [AccountRecord], _ store: StateStore, instance: InstanceURL, installMarker: String,
        made: StateLocation?
    ) async throws -> MintRecord {
        let now = context.now()
        let recorded = try await recordMint(minting.name, accounts, store, at: now)
        let pending = PendingMint(store: store, instance: instance, destination: minting.destination, name: minting.name)
        try await pending.record(at: now)
        let kept = recorded.isEmpty ? pending.kept : Self.keptForAccounts(minting, installMarker: installMarker)
        return MintRecord(name: minting.name, accounts: recorded, store: store, pending: pending, made: made, kept: kept)
    }

    /// What a failed login says of a name recorded as stale under the accounts of its server:
    /// runs revoke only this install's names; a removal of the account revokes any.
    private static func keptForAccounts(_ minting: SSHTokenMint, installMarker: String) -> String {
        let name = minting.name
        let head = "The server may have minted the token all the same: its name, \(name), is kept with the accounts of that server"
        if TokenRotation.isThisInstalls(name, installMarker: installMarker) {
            return "\(head), and the next run revokes the token if the server lists it."
        }
        return
            "\(head), and removing the account revokes it; to end it now, revoke it with `\(minting.destination.command(["token", "revoke", name]))` if `\(minting.destination.command(["token", "list"]))` shows it."
    }

    /// Forgets a recorded name: nothing was minted under it, or it was revoked again.
    private func forget(_ record: MintRecord) async {
        await forgetMint(record.name, record.accounts, record.store)
        await record.pending.forget(removingDatabase: record.made)
    }

    /// Records `name`, about to be minted, as a stale token name of each of `accounts` but one
    /// whose current token has that name; returns those it was recorded for.
    private func recordMint(_ name: String, _ accounts: [AccountRecord], _ store: StateStore, at now: Date) async throws -> [AccountRecord] {
        guard !accounts.isEmpty else { return [] }
        let records = try await store.apiTokenRecords()
        // Never the name of an account's current token (a --token-name given again, which the server refuses).
        let recorded = accounts.filter { records[$0.id]?.details.name != name }
        for account in recorded { try await store.recordStaleTokenNames([name], ofAccount: account.id, now: now) }
        return recorded
    }

    /// Forgets `name` as a stale name of `accounts`, except where a keyring item of it is left
    /// to delete; the account whose current token it became forgot it when signing in.
    private func forgetMint(_ name: String, _ accounts: [AccountRecord], _ store: StateStore) async {
        guard !accounts.isEmpty else { return }
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
