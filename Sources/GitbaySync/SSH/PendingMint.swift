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

/// The name of a token `login --ssh` mints on a server no account here is signed in to,
/// recorded before the mint (`StateStore.recordPendingMint`): a login stopped between the
/// mint and the sign-in leaves it for the next sign-in there, which makes it its account's to
/// revoke. A sign-in that goes through adopts it (`adoptPendingMints`).
struct PendingMint {
    let store: StateStore
    let instance: InstanceURL
    let destination: SSHDestination
    let name: String

    /// What a failed login adds when the name stays recorded.
    var kept: String {
        "The server may have minted the token all the same: only its name, \(name), is kept, and the next sign-in to \(instance) makes it its account's to revoke."
    }

    func record(at now: Date) async throws {
        try await store.recordPendingMint(name, instance: instance, destination: destination.description, now: now)
    }

    /// Forgets the name: no token was minted under it, or it was revoked again. A database
    /// this login made (`location`) goes too when nothing else is in it, so that a failed first
    /// login leaves nothing behind.
    func forget(removingDatabase location: StateLocation?) async {
        guard (try? await store.forgetPendingMint(name, instance: instance, destination: destination.description)) != nil else { return }
        guard let location, (try? await store.accounts())?.isEmpty == true, (try? await store.pendingMints(instance: instance))?.isEmpty == true
        else { return }
        for path in location.databaseFiles { unlink(path) }
    }
}
