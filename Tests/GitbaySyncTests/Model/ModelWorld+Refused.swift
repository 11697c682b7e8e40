import Foundation
import GitbayFake
import TestSupport

@testable import GitbayState
@testable import GitbaySupport

/// Tokens revoked behind this device's back (on the web), and what the product must then say:
/// (11) after a run, every account its server refuses the token of and that the run tried is
/// said `auth-failed` by that run, and is never said registered after it; no other account
/// failed for it; the checks of a fault-free run hold on the instances with no such account.
/// A sign-in again heals it, and the next fault-free run checks everything again.
extension ModelWorld {
    /// Revokes the account's token on its server, or the newest other valid one this install minted.
    func revokeBehind(_ index: Int, current: Bool) async throws {
        guard let account = try await signedIn()[name(index)] else { return }
        let (user, instance, _) = Self.users[index]
        let server = servers[instance]
        let stored = try await storedTokens()[account.id]?.exposedValue
        let marker = try await cli.store().device().installMarker
        let chosen =
            current
            ? stored
            : server.tokens(of: user).last { $0.name.contains(marker) && $0.value != stored && server.accepts($0.value) }?.value
        guard let chosen else { return }
        server.revokeToken(chosen)
        tokens.revokedBehindItsBack(chosen)
    }

    /// The accounts signed in here (whatever their state) whose stored token their server refuses, by index.
    func refusedAccounts() async throws -> Set<Int> {
        let names = try await signedIn()
        let stored = try await storedTokens()
        return Set(
            Self.users.indices.filter { index in
                guard let account = names[name(index)], let token = stored[account.id] else { return false }
                return !servers[Self.users[index].1].accepts(token.exposedValue)
            })
    }

    /// The instances with no account of `refused`.
    static func instances(without refused: Set<Int>) -> Set<Int> {
        Set([0, 1]).subtracting(refused.map { users[$0].1 })
    }

    /// (11) on the run that printed `result` while the accounts `refused` had their token
    /// refused: it failed for those alone, said each one it tried `auth-failed`, and `accounts`
    /// says none of them registered.
    func checkRefusedRun(_ result: CLIResult, refused: Set<Int>, _ number: Int) async throws {
        let names = Set(refused.map(name))
        let rows = try result.json()["accounts"] as? [[String: Any]] ?? []
        guard [0, 1].contains(result.code) else {
            throw ModelViolation(step: number, message: "a run with refused tokens of \(names.sorted()) failed (\(result.code)): \(result.err)")
        }
        for row in rows {
            let account = row["account"] as? String ?? ""
            let (action, condition) = (row["action"] as? String ?? "", row["condition"] as? String ?? "")
            if names.contains(account) {
                // Or removed: a removal whose own revocation went through before a crash ends.
                guard ["skipped", "removed"].contains(action) || condition == "auth-failed" else {
                    throw ModelViolation(step: number, message: "\(account), whose token is refused, was said \(action) \(condition) by a run")
                }
            } else if action == "failed" {
                throw ModelViolation(step: number, message: "\(account) failed (\(condition)) in a run beside refused tokens of \(names.sorted())")
            }
        }
        let tried = Set(rows.filter { $0["action"] as? String != "skipped" }.compactMap { $0["account"] as? String })
        let said = try await command(["accounts", "--json"]).json()["accounts"] as? [[String: Any]] ?? []
        for row in said where names.contains(row["account"] as? String ?? "") && tried.contains(row["account"] as? String ?? "") {
            if row["condition"] as? String == "registered" {
                throw ModelViolation(step: number, message: "\(row["account"] ?? "") is said registered after a run its server refused")
            }
        }
    }
}
