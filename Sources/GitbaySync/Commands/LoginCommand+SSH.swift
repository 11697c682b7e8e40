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
        let signedInThere = !(try await existing?.accounts(onServerOf: instance) ?? []).isEmpty
        let name = tokenName ?? (signedInThere ? TokenRotation.successorName(of: forInstall, at: context.now()) : forInstall)
        let minting = SSHTokenMint(program: program, destination: destination, name: name, lifetime: mint.lifetime)
        let startedAt = context.now()
        logger.info("login.ssh.mint", ["ssh.destination": destination.description, "token.name": name, "token.ttl": mint.lifetime.text])
        progress("minting the API token \(name) over ssh \(destination) (token create) …")
        let minted = try await minting.run(environment: context.environment, timeout: context.sshTimeout, shutdown: context.shutdown)
            .mapError { Self.mintFailure($0, minting, instance: instance) }.get()
        // The whole second before: never later than the server's expiry, and an instant that
        // reads back from the database as itself.
        let expiresAt = (startedAt.timeIntervalSinceReferenceDate + mint.lifetime.duration.inSeconds).rounded(.down)
        let details = APITokenDetails(name: name, expiresAt: Date(timeIntervalSinceReferenceDate: expiresAt), lifetime: mint.lifetime.duration)
        do {
            try Self.checkAPIToken(minted.token.exposedValue)
            return try await signIn(
                instance, apiToken: minted.token, details: details, choice: choice, existing: existing, installMarker: installMarker,
                sshDestination: destination)
        } catch {
            let undone = await revoke(minted.token, minting, instance: instance)
            let (code, message, _) = GitbaySyncCLI.classify(error)
            throw CommandFailure("\(message) \(undone)", exitCode: code)
        }
    }

    /// Revokes a token minted for a sign-in that failed, with the token itself (a full-scope
    /// token may revoke itself); says how it went, and how to revoke it by hand if need be.
    private func revoke(_ token: Secret, _ minting: SSHTokenMint, instance: InstanceURL) async -> String {
        let client = GitbayClient(
            instance: instance, apiToken: token, accountName: "\(instance.authority)", configuration: context.client, logger: logger)
        do {
            try await client.revokeToken(named: minting.name)
            return "The token \(escaped: minting.name) minted for it was revoked again."
        } catch {
            logger.info("login.ssh.revoke-failed", ["token.name": minting.name, "error": "\(error)"])
            return
                "The token \(escaped: minting.name) minted for it could not be revoked: revoke it with `\(minting.destination.command(["token", "revoke", minting.name]))`."
        }
    }
}
