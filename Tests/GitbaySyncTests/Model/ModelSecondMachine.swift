import Foundation
import GitbayFake
import TestSupport

@testable import GitbayAPI
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// The machine a copy of the state folder was taken to: its own command line, its own device
/// token (never one the first machine held), and what the test knows of it.
final class ModelSecondMachine {
    let cli: CLIHarness
    /// Every token this machine has held: a pool apart from the first machine's.
    private(set) var heldTokens: Set<String> = []
    private(set) var currentToken: String?

    /// Copies `first`'s state database here, as rsync or a restored backup would.
    init(copying first: CLIHarness) throws {
        cli = try CLIHarness()
        let target = cli.databasePath
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: first.databasePath + suffix) {
            try FileManager.default.copyItem(atPath: first.databasePath + suffix, toPath: target + suffix)
        }
    }

    func command(_ arguments: [String], stdin: String? = nil, client: ClientConfiguration, clockAhead: TimeInterval) async -> CLIResult {
        await cli.run(arguments, stdin: stdin, client: client) { context in
            context.machine = { ModelWorld.otherMachine }
            context.now = { Date().addingTimeInterval(clockAhead) }
        }
    }

    /// Sets this machine's own device token.
    func setToken(_ token: String, client: ClientConfiguration, clockAhead: TimeInterval) async throws {
        let result = await command(["device", "set-token"], stdin: token, client: client, clockAhead: clockAhead)
        guard result.code == 0 else { throw ModelViolation(step: -1, message: "set-token on the second machine failed: \(result.err)") }
        heldTokens.insert(token)
        currentToken = token
    }

    /// After a fault-free run here: every row of this machine's tokens holds its current one
    /// with its label, one a server at most, and the next run here writes nothing.
    func checkSettled(_ servers: [FakeGitbayServer], client: ClientConfiguration, step: Int, clockAhead: TimeInterval) async throws {
        let serverLabel = try await cli.store().device().serverLabel
        for (index, server) in servers.enumerated() {
            let rows = server.devices().filter { heldTokens.contains($0.token) }
            guard rows.count <= 1, rows.allSatisfy({ $0.token == currentToken && $0.label == serverLabel }) else {
                throw ModelViolation(
                    step: step, message: "the second machine's rows on instance \(index) are \(rows.map { "\($0.id) \($0.owner) \($0.label)" })")
            }
        }
        servers.forEach { $0.resetRequests() }
        let again = await command(["run", "--json"], client: client, clockAhead: clockAhead)
        let writes = servers.flatMap { $0.requests().filter(\.isWrite) }
        guard try Self.isDone(again), writes.isEmpty else {
            throw ModelViolation(step: step, message: "the second machine's next run wrote \(writes.map(\.argv)) (exit \(again.code))")
        }
    }

    /// True when a run here did its job for every account it could read the token of: exit 0,
    /// or 75 with every unchecked account's token in the first machine's keyring, which no
    /// copy of the database can read.
    static func isDone(_ result: CLIResult) throws -> Bool {
        guard result.code != 0 else { return true }
        guard result.code == 75, let rows = try result.json()["accounts"] as? [[String: Any]] else { return false }
        return rows.allSatisfy { row in
            guard let reason = row["unchecked"] as? String else { return row["action"] as? String != "failed" }
            return reason.hasPrefix("keyring-")
        }
    }

    /// True when a run here failed only for accounts whose API token the servers refuse: the
    /// first machine revoked it at a sign-out there, or the user on the web, while this copy of
    /// its database held it too (or its copy says it was refused already).
    func failedOnlyOnRevokedTokens(_ result: CLIResult, _ servers: [FakeGitbayServer]) async throws -> Bool {
        guard result.code == 1, let rows = try result.json()["accounts"] as? [[String: Any]] else { return false }
        let store = try await cli.store()
        let tokens = try await store.storedAPITokens()
        let accounts = Dictionary(uniqueKeysWithValues: try await store.accounts().map { ($0.name, $0.id) })
        for row in rows {
            let (condition, action) = (row["condition"] as? String, row["action"] as? String)
            guard condition == "auth-failed" else {
                if action == "failed" { return false }
                continue
            }
            // Refused on the first machine, as the copy says: nothing is asked until a sign-in again.
            if action == "skipped" { continue }
            guard let id = accounts[row["account"] as? String ?? ""], let token = tokens[id]?.token.exposedValue,
                servers.allSatisfy({ !$0.accepts(token) })
            else { return false }
        }
        return true
    }
}
