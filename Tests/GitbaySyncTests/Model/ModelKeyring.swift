import Foundation
import GitbayKeyring
import TestSupport

@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// What the model checks of the tokens in this machine's keyring and of their rotation:
/// (8) after every step not taken beside a run, the keyring holds the item the database names
/// for each account's token, and no item the database does not know of (as the item in use or
/// a stale token's), and on a machine with no keyring the database names none; (9) after a
/// fault-free run, no account it reconciled keeps a token due for rotation; (12) after a
/// fault-free run on a machine with a keyring (one that started late too), no account it
/// reconciled keeps its token awaiting the keyring.
enum ModelKeyring {
    /// Every item of `keyring`. A read beside a run that deletes an item can find it gone
    /// between the search and the fetch of the secrets (and fail, as that run's own read
    /// would: its accounts wait): the read is tried again.
    static func readAll(_ keyring: SecretServiceKeyring) async throws -> [String: Secret] {
        for _ in 1..<5 {
            if let items = try? await keyring.readAll() { return items }
        }
        return try await keyring.readAll()
    }

    /// (8), on the keyring's items as `kept` holds them.
    static func checkItems(_ store: StateStore, kept: [String: Secret], step: Int) async throws {
        let named = try await store.keyringItems()
        var known = Set(named.values)
        for account in try await store.accounts() {
            known.formUnion(try await store.allKeyringItems(ofAccount: account.id))
            if account.state != .removing, let item = named[account.id], kept[item] == nil {
                throw ModelViolation(step: step, message: "\(account.name)'s token is gone from the keyring: no item \(item)")
            }
        }
        if let orphan = kept.keys.first(where: { !known.contains($0) }) {
            throw ModelViolation(step: step, message: "the keyring holds the item \(orphan), which the database does not know of")
        }
    }

    /// (8), on a machine with no keyring: the database names no keyring item, in use or stale.
    static func checkNoItems(_ store: StateStore, step: Int) async throws {
        var named = Set(try await store.keyringItems().values)
        for account in try await store.accounts() { named.formUnion(try await store.allKeyringItems(ofAccount: account.id)) }
        if let item = named.first {
            throw ModelViolation(step: step, message: "with no keyring on the machine, the database names the keyring item \(item)")
        }
    }

    /// (12), after the fault-free run that printed `result` on a machine with a keyring: no
    /// account it reconciled keeps its token in the database awaiting the keyring.
    static func checkMoved(_ result: CLIResult, _ store: StateStore, step: Int) async throws {
        let rows = try result.json()["accounts"] as? [[String: Any]] ?? []
        let reconciled = Set(
            rows.filter { ($0["action"] as? String).map { !["skipped", "failed"].contains($0) } ?? false }.compactMap { $0["account"] as? String })
        let awaiting = try await store.runFacts().awaitingKeyring
        for account in try await store.accounts() where awaiting.contains(account.id) && reconciled.contains(account.name) {
            throw ModelViolation(step: step, message: "a fault-free run left \(account.name)'s token awaiting the keyring, which answers")
        }
    }

    /// (9), after the fault-free run that printed `result`, on the device's clock `now`.
    static func checkRotated(_ result: CLIResult, _ store: StateStore, now: Date, step: Int) async throws {
        let rows = try result.json()["accounts"] as? [[String: Any]] ?? []
        let reconciled = Set(
            rows.filter { ($0["action"] as? String).map { !["skipped", "failed"].contains($0) } ?? false }.compactMap { $0["account"] as? String })
        let marker = try await store.device().installMarker
        let details = try await store.accountFacts().tokenDetails
        for account in try await store.accounts() where account.state != .removing && reconciled.contains(account.name) {
            guard let token = details[account.id] else { continue }
            if TokenRotation.need(token, staleNames: [], installMarker: marker, now: now).rotate {
                throw ModelViolation(step: step, message: "a fault-free run left \(account.name)'s token \(token.name ?? "") due for rotation")
            }
        }
    }
}
