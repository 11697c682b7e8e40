internal import CSecret
import GitbaySupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The freedesktop Secret Service (gnome-keyring, KeePassXC, KWallet's bridge) through
/// libsecret, which is opened at run time: the token of `user@host` is the item with the
/// attributes `service=gitbay-sync` and `account=user@host`, in the default collection.
///
/// Everything comes from the environment given, never the process's: the session bus
/// (`SessionBus`) and `GITBAY_SYNC_LIBSECRET`, a library file to open instead of
/// `libsecret-1.so.0`. Each call makes its own D-Bus connection to that bus, so keyrings of
/// different environments in one process never share one.
///
/// libsecret's synchronous calls run on a queue of this keyring's, never a cooperative
/// thread, each bounded by `timeout` (a D-Bus timeout on every call, a cancellation at the
/// deadline, and the caller's own deadline after that). Without `unlocking` nothing is ever
/// done that would prompt: a locked keyring is reported `.locked` at once, which suits a
/// timer run that nobody watches; with it, a locked item or keyring is unlocked first, which
/// may ask the user (within `timeout`).
package final class SecretServiceKeyring: TokenKeyring {
    /// The `service` attribute of every item.
    static let service = "gitbay-sync"

    let timeout: Duration
    let unlocking: Bool
    let environment: [String: String]
    let queue = KeyringQueue(label: "gitbay-sync.secret-service")

    package init(environment: [String: String], timeout: Duration = .seconds(10), unlocking: Bool = false) {
        self.environment = environment
        self.timeout = timeout
        self.unlocking = unlocking
    }

    /// The library file this keyring opens.
    package var libraryPath: String {
        environment["GITBAY_SYNC_LIBSECRET"].flatMap { $0.isEmpty ? nil : $0 } ?? SecretLibrary.systemPath
    }

    package func store(_ secret: Secret, for account: String) async throws(KeyringUnavailable) {
        let label = "gitbay-sync token for \(account)"
        let unlock: Int32 = unlocking ? 1 : 0
        try await perform { session, classify in
            let bytes = Array(secret.exposedValue.utf8)
            var result = bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    csecret_store(session, Self.service, account, label, $0.baseAddress, $0.count, unlock)
                }
            }
            defer { csecret_result_free(&result) }
            return result.status == CSECRET_OK ? .success(()) : .failure(classify(result))
        }
    }

    /// Searches made at most for one read: another client (another gitbay-sync rotating a
    /// token) may delete an item between a search and the fetch of its secret.
    static let searches = 5

    /// What one search read: the tokens, or that an item it found was deleted before it was
    /// read (with what the keyring said), so that only a new search tells what it holds.
    private enum Read: Sendable {
        case read([String: Secret])
        case raced(KeyringUnavailable)
    }

    package func readAll() async throws(KeyringUnavailable) -> [String: Secret] {
        var said = KeyringUnavailable.failed(detail: "no search was made")
        for _ in 0..<Self.searches {
            switch try await search() {
            case .read(let secrets): return secrets
            case .raced(let reason): said = reason
            }
        }
        throw said
    }

    private func search() async throws(KeyringUnavailable) -> Read {
        let unlock: Int32 = unlocking ? 1 : 0
        return try await perform { session, classify in
            var items: UnsafeMutablePointer<csecret_item>?
            var count = 0
            var result = csecret_read_all(session, Self.service, unlock, &items, &count)
            defer {
                csecret_result_free(&result)
                csecret_items_free(items, count)
            }
            if Self.isDeletedItem(result) { return .success(.raced(classify(result))) }
            guard result.status == CSECRET_OK else { return .failure(classify(result)) }
            var secrets: [String: Secret] = [:]
            for item in UnsafeBufferPointer(start: items, count: count) {
                // One locked item of ours and the tokens are not all there: wait for the unlock.
                guard item.locked == 0 else { return .failure(.locked) }
                // Unlocked with no secret: deleted after the search found it.
                guard let secret = item.secret else { return .success(.raced(.failed(detail: "an item was deleted while it was read"))) }
                let bytes = UnsafeRawBufferPointer(start: secret, count: item.secret_length)
                let account = String(cString: item.account)
                if secrets[account] == nil { secrets[account] = Secret(String(decoding: bytes, as: UTF8.self)) }
            }
            if secrets.isEmpty {
                // A locked keyring may hold items a search does not show.
                var collection = csecret_default_collection(session)
                defer { csecret_result_free(&collection) }
                if collection.status == CSECRET_LOCKED { return .failure(.locked) }
            }
            return .success(.read(secrets))
        }
    }

    /// Whether a search failed on an item deleted while it ran: a call on the item's path
    /// that no object answers any more (gnome-keyring says UnknownMethod, the specification
    /// NoSuchObject), or libsecret's SECRET_ERROR_NO_SUCH_OBJECT (3) for it.
    private static func isDeletedItem(_ result: csecret_result) -> Bool {
        guard result.status != CSECRET_OK else { return false }
        switch result.remote_name.map({ String(cString: $0) }) {
        case "org.freedesktop.Secret.Error.NoSuchObject", "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownObject":
            return true
        default:
            return result.domain.map { String(cString: $0) } == "secret-error" && result.code == 3
        }
    }

    @discardableResult
    package func delete(account: String) async throws(KeyringUnavailable) -> KeyringDeletion {
        let unlock: Int32 = unlocking ? 1 : 0
        return try await perform { session, classify in
            var result = csecret_delete(session, Self.service, account, unlock)
            defer { csecret_result_free(&result) }
            switch result.status {
            case CSECRET_OK: return .success(.deleted)
            case CSECRET_NO_ITEM: return .success(.noItem)
            default: return .failure(classify(result))
            }
        }
    }
}
