import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Proves that two instance URLs name one server, from this install's own add. On a server a
/// token's row belongs to one account at a time, and a row keeps its id and `added` when an
/// add of its token by another account moves it. So when, around an add of the current token
/// by account X under one URL, a row this install recorded for account Y under another URL
/// is in Y's list just before, X's add answers that id, X's list then shows it with the same
/// `added`, and Y's list just after no longer has it, the row moved between them: one server.
///
/// Two servers handing out the same id at the same millisecond keep both rows listed, so they
/// never give that sequence (both lists are read around the add, milliseconds apart); only a
/// row removed on the other server exactly then could. Nothing is proven from ids or `added`
/// times alone.
struct SameServerCheck: Sendable {
    let store: StateStore
    /// Where the witnesses' tokens are read.
    let tokens: APITokens
    let configuration: ClientConfiguration
    let logger: Logger
    let turns: AddTurns

    /// An account of another server holding a record of the token being added, and its list
    /// just before the add.
    struct Witness: Sendable {
        let account: AccountRecord
        let client: GitbayClient
        let records: [RegistrationRecord]
        let rows: [ServerDevice]
    }

    /// Before `account` adds `token`: every account of another server (not proven the same)
    /// with a record of a row holding it, each listed now through its own client, all at once.
    /// Accounts whose list cannot be read are left out: nothing is proven from them.
    func witnesses(for account: AccountRecord, token: TokenIdentity) async -> [Witness] {
        guard let fingerprint = token.fingerprint,
            let holding = try? await store.registrations(holdingFingerprint: fingerprint),
            let names = try? await store.serverNames()
        else { return [] }
        var others: [(account: AccountRecord, client: GitbayClient, records: [RegistrationRecord])] = []
        for (id, records) in holding.sorted(by: { $0.key < $1.key }) where id != account.id {
            guard let other = try? await store.account(id: id), !names.areSame(other.instance, account.instance),
                let apiToken = try? await tokens.token(of: other)
            else { continue }
            let client = GitbayClient(
                instance: other.instance, apiToken: apiToken, accountName: other.name, configuration: configuration, logger: logger)
            others.append((other, client, records))
        }
        let lists = await Self.lists(by: others.map(\.client))
        return zip(others, lists).compactMap { other, rows in
            rows.map { Witness(account: other.account, client: other.client, records: other.records, rows: $0) }
        }
    }

    /// Each client's `device list` read now, all at once, in the clients' order; nil where it
    /// could not be read.
    static func lists(by clients: [GitbayClient]) async -> [[ServerDevice]?] {
        await withTaskGroup(of: (Int, [ServerDevice]?).self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask {
                    guard case .list(let rows, _)? = try? await client.listDevices(ifNoneMatch: nil) else { return (index, nil) }
                    return (index, rows)
                }
            }
            var lists = [[ServerDevice]?](repeating: nil, count: clients.count)
            for await (index, rows) in group { lists[index] = rows }
            return lists
        }
    }

    /// After `account`'s add answered `id`: the proof, recorded, when the row moved from a
    /// witness (see the type). `listed` is the adder's list after the add. A witness whose
    /// list cannot be read again may have lost its row to the add: its row is left in doubt.
    func prove(_ account: AccountRecord, added id: Int, listed: [ServerDevice], witnesses: [Witness]) async -> SameServerRecord? {
        guard let row = listed.first(where: { $0.id == id }) else {
            await doubt(witnesses, after: account)
            return nil
        }
        let listedIt = witnesses.filter { witness in
            guard let before = witness.rows.first(where: { $0.id == id }), before.added == row.added,
                let record = witness.records.first(where: { $0.deviceID == id })
            else { return false }
            return record.added.map { $0 == row.added } ?? true
        }
        for (witness, after) in zip(listedIt, await Self.lists(by: listedIt.map(\.client))) {
            guard let after else {
                await doubt([witness], after: account)
                continue
            }
            guard !after.contains(where: { $0.id == id }) else { continue }
            let proof = SameServerRecord(
                instance: account.instance, other: witness.account.instance, deviceID: id, added: row.added, provenAt: Date())
            guard (try? await store.recordSameServer(proof)) != nil else { return nil }
            logger.info(
                "instance.same-server",
                ["instance": account.instance.description, "instance.other": witness.account.instance.description, "device.id": String(id)])
            await turns.noteProven(proof)
            return proof
        }
        return nil
    }

    /// After `account`'s add answered `id`: when a witness listed that id just before, this
    /// account's list and the witness's are read again, for the proof of one server. A witness
    /// the check cannot settle may have lost its row to the add: its row is left in doubt.
    func check(_ account: AccountRecord, client: GitbayClient, added id: Int, witnesses: [Witness]) async {
        let candidates = witnesses.filter { $0.rows.contains { $0.id == id } }
        guard !candidates.isEmpty else { return }
        guard case .list(let rows, _)? = try? await client.listDevices(ifNoneMatch: nil) else {
            await doubt(candidates, after: account)
            return
        }
        _ = await prove(account, added: id, listed: rows, witnesses: candidates)
    }

    /// Leaves the witnesses' rows in doubt after `account`'s add (`StateStore.doubtRows`): a
    /// fact each witness's own next pass reads; its status is its own pass's to write.
    func doubt(_ witnesses: [Witness], after account: AccountRecord) async {
        try? await store.doubtRows(ofAccounts: witnesses.map(\.account.id), by: account.instance, at: Date())
    }

    /// Requests the witnesses' clients made.
    static func requests(of witnesses: [Witness]) async -> Int {
        var count = 0
        for witness in witnesses { count += await witness.client.requestCount }
        return count
    }
}
