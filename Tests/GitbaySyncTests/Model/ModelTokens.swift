import Foundation
import GitbayFake

@testable import GitbayState
@testable import GitbaySupport

/// What the model knows of the accounts' API tokens. Every sign-in is given a token named as
/// `login --ssh` names one (with this install's marker) and recorded with its expiry and
/// lifetime, so that runs rotate it once the device's clock moves near its expiry. Beside
/// them, each user has a token of their own and one of another install, which nothing here may
/// revoke. Checked: (5) those outlive every step; (6) an account that leaves (its removal
/// complete; the model never forces one) leaves its last token revoked, unless it was pasted
/// with no name (the install knows none to revoke it by), and its stale names and every other
/// token this install minted for it revoked, unless its last token was revoked behind its back
/// (nothing is left to revoke them with); (7) after
/// a fault-free run, the only valid token of this install for each signed-in account whose
/// token the server takes is its stored one: a crash between a rotation's mint and its
/// revocation is healed, and so is a token a sign-in replaced.
final class ModelTokens {
    static let lifetime = Duration.seconds(90 * 86_400)

    private var minted = 0
    /// The user's own tokens and another install's: (instance, value).
    private var foreign: [(instance: Int, value: String)] = []
    /// Each account's token as last seen, by account row id, with its user and instance.
    private var lastSeen: [Int64: (user: String, instance: Int, stored: StoredAPIToken)] = [:]
    /// Tokens a later sign-in replaced: the model's own doing, which nothing revokes.
    private var replaced: Set<String> = []
    /// Tokens `login --ssh` minted for a first sign-in that stopped before storing them, by
    /// user: the next sign-in of that user makes them its account's to revoke.
    private var pending: [String: Set<String>] = [:]
    /// Tokens the user revoked on the web.
    private var revokedBehind: Set<String> = []
    /// Tokens `login --ssh` minted for an account being removed whose own token no longer
    /// worked, and stopped before storing: nothing this install holds can revoke them.
    private var unrevocable: Set<String> = []
    /// This install's marker, which the names of its tokens carry.
    private var installMarker = "?"

    /// Gives every user a token of their own and one of another install, on their instance.
    func addForeignTokens(_ servers: [FakeGitbayServer], users: [(String, Int, String)]) {
        for (user, instance, _) in users {
            foreign.append((instance, servers[instance].mintToken(for: user, name: "my-own-token")))
            foreign.append((instance, servers[instance].mintToken(for: user, name: "gitbay-sync-desk-gbs-zzzzzz")))
        }
    }

    /// The name a sign-in's token is minted under: this install's, unique on the server.
    func loginName(_ user: String, installMarker: String) -> String {
        minted += 1
        return "gitbay-sync-\(user)\(minted)-\(installMarker)"
    }

    /// The name of a token the user made on the web and pastes: not this install's.
    func pastedName(_ user: String) -> String {
        minted += 1
        return "pasted-\(user)\(minted)"
    }

    /// Records `tokens`, minted by a first `login --ssh` of `user` that stopped before storing them.
    func pendingMints(_ tokens: [String], of user: String) {
        pending[user, default: []].formUnion(tokens)
    }

    /// Records `tokens`, minted by a `login --ssh` that stopped before storing them, for an
    /// account being removed whose token no longer worked then.
    func unrevocableMints(_ tokens: [String]) {
        unrevocable.formUnion(tokens)
    }

    /// Records that `user` signed in: its pending mints are its account's to revoke.
    func signedIn(_ user: String) {
        pending[user] = nil
    }

    /// Records that the user revoked `token` on the web.
    func revokedBehindItsBack(_ token: String) {
        revokedBehind.insert(token)
    }

    /// Records that a sign-in replaced `token`, the account's before it.
    func replacedBySignIn(_ token: Secret?) {
        if let token { replaced.insert(token.exposedValue) }
    }

    /// Reads every account's token (those the keyring holds given as `tokens`, by account id);
    /// returns the tokens stored now (rotations add some).
    func observe(_ store: StateStore, users: [Int64: (String, Int)], tokens: [Int64: Secret]) async throws -> Set<String> {
        installMarker = try await store.device().installMarker
        let stored = try await store.storedAPITokens(keyringTokens: tokens)
        for (id, token) in stored {
            guard let (user, instance) = users[id] else { continue }
            lastSeen[id] = (user, instance, token)
        }
        return Set(stored.values.map(\.token.exposedValue))
    }

    /// (5) and (6), after every step; `signedIn` holds the account ids still there, `stored`
    /// the tokens they hold.
    func check(_ servers: [FakeGitbayServer], signedIn: Set<Int64>, stored: Set<String>, step: Int) throws {
        for (instance, value) in foreign where !servers[instance].accepts(value) {
            throw ModelViolation(step: step, message: "a token that is not this install's was revoked on instance \(instance)")
        }
        for (id, seen) in lastSeen where !signedIn.contains(id) {
            lastSeen[id] = nil
            let server = servers[seen.instance]
            let token = seen.stored.token.exposedValue
            if seen.stored.details.name != nil, server.accepts(token) {
                throw ModelViolation(step: step, message: "\(seen.user)'s removal completed with its API token still valid")
            }
            let names = Set([seen.stored.details.name].compactMap { $0 } + (revokedBehind.contains(token) ? [] : seen.stored.staleNames))
            if let left = server.tokens(of: seen.user).first(where: {
                names.contains($0.name) && server.accepts($0.value) && !unrevocable.contains($0.value)
            }) {
                throw ModelViolation(step: step, message: "\(seen.user)'s removal completed with this install's token \(left.name) still valid")
            }
            // Nor one this install minted that no record named. A sign-in that came after the
            // removal's deletion, in the same step (beside a run), made an account of its own.
            let excused = replaced.union(pending[seen.user] ?? []).union(unrevocable).union(stored)
            if !revokedBehind.contains(token),
                let left = server.tokens(of: seen.user).first(where: {
                    $0.name.contains(installMarker) && server.accepts($0.value) && !excused.contains($0.value)
                })
            {
                throw ModelViolation(
                    step: step, message: "\(seen.user)'s removal completed with this install's token \(left.name) valid, named nowhere")
            }
        }
    }

    /// (7), after a fault-free run: each account not being removed whose token its server
    /// takes has exactly one valid token of this install there, the stored one (none when that
    /// one was pasted with no name).
    func checkHealed(_ servers: [FakeGitbayServer], _ store: StateStore, tokens: [Int64: Secret], step: Int) async throws {
        let marker = try await store.device().installMarker
        let stored = try await store.storedAPITokens(keyringTokens: tokens)
        for account in try await store.accounts() where account.state != .removing {
            guard let seen = lastSeen[account.id], let token = stored[account.id] else { continue }
            let server = servers[seen.instance]
            guard server.accepts(token.token.exposedValue) else { continue }
            let excused = replaced.union(pending[seen.user] ?? [])
            let valid = server.tokens(of: seen.user).filter {
                $0.name.contains(marker) && server.accepts($0.value) && !excused.contains($0.value)
            }
            let expected = token.details.name == nil ? [] : [token.token.exposedValue]
            guard valid.map(\.value) == expected else {
                throw ModelViolation(
                    step: step,
                    message: "\(seen.user) has this install's valid tokens \(valid.map(\.name)) after a fault-free run, not only the stored one")
            }
        }
    }
}
