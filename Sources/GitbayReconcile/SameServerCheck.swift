import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Tells from one account's own observations whether another instance URL names its server.
/// On a server a token's row belongs to one account at a time, and a row keeps its id and
/// `added` when an add of its token by another account moves it. So when account X (under
/// one URL) records a row of this device's token with the id that account Y (under another
/// URL) has recorded, either the row moved from Y to X (one server) or two servers gave the
/// same id. Only Y's own list can tell, and Y's own next pass reads it: X's add names Y a
/// suspect, and Y lists again (in the same run, through its own client).
///
/// - Y's list, read just after X's add, no longer has the row: it moved to X, whose record of
///   it is the later one. One server. (Gone from a list no add asked for, the row may have
///   been reaped or taken by another user: Y adds it again, and that add's check settles it.)
/// - Y's list still has it with that `added`: two accounts listed one token's row at once, so
///   the URLs name two servers, kept as such. A row that goes missing later (reaped, removed
///   on the web) then proves nothing.
///
/// No pass lists another account's server for this, so no server's trouble reaches another
/// account. Everything here is a function of values; the driver reads and records.
enum SameServerCheck {
    /// The accounts whose own next pass settles what `account`'s add of row `id` means: those
    /// under another URL, not known to be this server or another, holding a record of the
    /// same token and id (with the same `added`, where both are known).
    static func suspects(
        after account: AccountRecord, added id: Int, at added: String?, token: TokenIdentity, holding: [Int64: [RegistrationRecord]],
        accounts: [Int64: AccountRecord], names: ServerNames
    ) -> [Int64] {
        holding.keys.sorted().filter { otherID in
            guard otherID != account.id, let other = accounts[otherID], isUnsettled(account.instance, other.instance, names) else { return false }
            return holding[otherID, default: []].contains { record in
                record.deviceID == id && record.token.isSameToken(as: token) && (record.added == nil || added == nil || record.added == added)
            }
        }
    }

    /// What `account`'s own full list `rows` says of its records against those of accounts
    /// under other URLs (`holding`, by account, of the same tokens): the URLs proven one server
    /// (a row of ours gone from our list, recorded later by the other account with its id and
    /// `added`), and those seen to be two servers (our row still listed with that `added`).
    static func verdicts(
        of account: AccountRecord, records: [RegistrationRecord], rows: [ServerDevice], holding: [Int64: [RegistrationRecord]],
        accounts: [Int64: AccountRecord], names: ServerNames, provingSince: Date?, now: Date
    ) -> (proofs: [SameServerRecord], distinct: [InstanceURL]) {
        let listed = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var proofs: [SameServerRecord] = []
        var distinct: [InstanceURL] = []
        for ours in records {
            // Later records of this row by accounts under other, unsettled URLs, with the
            // `added` they saw: the row moved to one of them, or each is a coincidence.
            var later: [(url: InstanceURL, added: String, madeAt: Date)] = []
            for (otherID, theirs) in holding.sorted(by: { $0.key < $1.key }) {
                guard let other = accounts[otherID], other.id != account.id, isUnsettled(account.instance, other.instance, names) else { continue }
                for record in theirs where ours.mayHaveMoved(to: record) {
                    if let added = record.added, !later.contains(where: { $0.url == other.instance }) {
                        later.append((other.instance, added, record.madeAt))
                    }
                }
            }
            if let row = listed[ours.deviceID] {
                for candidate in later where candidate.added == row.added && !distinct.contains(candidate.url) { distinct.append(candidate.url) }
            } else if let since = provingSince, later.count == 1, let moved = later.first, moved.madeAt >= since,
                !proofs.contains(where: { [$0.instance, $0.other].contains(moved.url) })
            {
                // Gone from our list just after an add under exactly one other URL recorded it:
                // the row moved. Gone for longer, it may have been reaped or taken by another
                // user; under several URLs, a coincidence of ids cannot be told from the move.
                // Then the account adds its row again, and that add's own check settles it.
                proofs.append(
                    SameServerRecord(instance: account.instance, other: moved.url, deviceID: ours.deviceID, added: moved.added, provenAt: now))
            }
        }
        return (proofs, distinct.filter { url in !proofs.contains { [$0.instance, $0.other].contains(url) } })
    }

    /// Two URLs neither proven one server nor seen to be two.
    private static func isUnsettled(_ a: InstanceURL, _ b: InstanceURL, _ names: ServerNames) -> Bool {
        !names.areSame(a, b) && !names.areDistinct(a, b)
    }
}
