#if canImport(Security)
import Foundation
import GitbaySupport
import Security

/// The login Keychain through Security.framework: the token of `user@host` is the generic
/// password with service `gitbay-sync` and account `user@host`.
///
/// `SecItem` calls block (and may wait on the user for an access prompt), so they run on a
/// queue of this value's, never a cooperative thread, each bounded by `timeout` like the
/// Secret Service's; a Keychain call cannot be cancelled, so one that outlives its deadline
/// finishes in the background.
package final class KeychainTokens: TokenKeyring {
    static let service = "gitbay-sync"

    private let timeout: Duration
    private let queue = KeyringQueue(label: "gitbay-sync.keychain")

    package init(timeout: Duration = .seconds(10)) {
        self.timeout = timeout
    }

    package func store(_ secret: Secret, for account: String) async throws(KeyringUnavailable) {
        let label = "gitbay-sync token for \(account)"
        try await queue.run(timeout: timeout) { () -> Result<Void, KeyringUnavailable> in
            let data = Data(secret.exposedValue.utf8)
            var item = Self.match(account: account)
            item[kSecValueData as String] = data
            item[kSecAttrLabel as String] = label
            let added = SecItemAdd(item as CFDictionary, nil)
            guard added == errSecDuplicateItem else { return Self.outcome(added) }
            let updated = SecItemUpdate(Self.match(account: account) as CFDictionary, [kSecValueData as String: data] as CFDictionary)
            return Self.outcome(updated)
        }
    }

    package func readAll() async throws(KeyringUnavailable) -> [String: Secret] {
        try await queue.run(timeout: timeout) { () -> Result<[String: Secret], KeyringUnavailable> in
            var query = Self.match(account: nil)
            query[kSecMatchLimit as String] = kSecMatchLimitAll
            query[kSecReturnAttributes as String] = true
            query[kSecReturnData as String] = true
            var found: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &found)
            if status == errSecItemNotFound { return .success([:]) }
            // The file-based login keychain refuses data for many items at once (errSecParam):
            // there the attributes come in one query and each item's data in one more.
            if status == errSecParam { return Self.readOneByOne() }
            if case .failure(let reason) = Self.outcome(status) { return .failure(reason) }
            return .success(Self.secrets(in: found as? [[String: Any]] ?? []))
        }
    }

    @discardableResult
    package func delete(account: String) async throws(KeyringUnavailable) -> KeyringDeletion {
        try await queue.run(timeout: timeout) { () -> Result<KeyringDeletion, KeyringUnavailable> in
            let status = SecItemDelete(Self.match(account: account) as CFDictionary)
            if status == errSecItemNotFound { return .success(.noItem) }
            return Self.outcome(status).map { KeyringDeletion.deleted }
        }
    }

    /// The generic passwords of this program, of `account` only unless it is nil.
    private static func match(account: String?) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        if let account { query[kSecAttrAccount as String] = account }
        return query
    }

    /// The accounts and secrets of rows holding both attributes and data.
    private static func secrets(in rows: [[String: Any]]) -> [String: Secret] {
        var secrets: [String: Secret] = [:]
        for row in rows {
            guard let account = row[kSecAttrAccount as String] as? String, let data = row[kSecValueData as String] as? Data else { continue }
            secrets[account] = Secret(String(decoding: data, as: UTF8.self))
        }
        return secrets
    }

    /// `readAll` where the Keychain gives data for one item at a time.
    private static func readOneByOne() -> Result<[String: Secret], KeyringUnavailable> {
        var query = match(account: nil)
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        query[kSecReturnAttributes as String] = true
        var found: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &found)
        if status == errSecItemNotFound { return .success([:]) }
        if case .failure(let reason) = outcome(status) { return .failure(reason) }
        var secrets: [String: Secret] = [:]
        for row in found as? [[String: Any]] ?? [] {
            guard let account = row[kSecAttrAccount as String] as? String else { continue }
            var one = match(account: account)
            one[kSecMatchLimit as String] = kSecMatchLimitOne
            one[kSecReturnData as String] = true
            var data: CFTypeRef?
            let read = SecItemCopyMatching(one as CFDictionary, &data)
            if read == errSecItemNotFound { continue }
            if case .failure(let reason) = outcome(read) { return .failure(reason) }
            if let data = data as? Data { secrets[account] = Secret(String(decoding: data, as: UTF8.self)) }
        }
        return .success(secrets)
    }

    /// What a Keychain status means for the caller.
    private static func outcome(_ status: OSStatus) -> Result<Void, KeyringUnavailable> {
        switch status {
        case errSecSuccess:
            return .success(())
        case errSecInteractionNotAllowed, errSecAuthFailed, errSecUserCanceled:
            return .failure(.locked)
        case errSecNoSuchKeychain, errSecNoDefaultKeychain, errSecNotAvailable:
            return .failure(.noKeyring)
        default:
            let message = SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "no detail"
            return .failure(.failed(detail: "OSStatus \(status): \(KeyringUnavailable.said(message))"))
        }
    }
}
#endif
