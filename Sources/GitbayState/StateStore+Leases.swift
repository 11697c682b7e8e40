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

/// One taking of account leases: this process, and a random id for this command.
package struct LeaseHolder: Sendable, Equatable {
    package let pid: Int32
    package let id: String

    /// A fresh holder for this process.
    package static func new() -> LeaseHolder {
        var generator = SystemRandomNumberGenerator()
        return LeaseHolder(pid: getpid(), id: String(generator.next(), radix: 36))
    }
}

/// A lease on an account, as stored.
package struct LeaseRecord: Sendable, Equatable {
    package let accountID: Int64
    package let holderPID: Int32
    package let holderID: String
    package let takenAt: Date
    package let expiresAt: Date

    /// True while the holding process exists and the lease has not expired.
    package func isLive(at now: Date) -> Bool {
        guard expiresAt > now else { return false }
        return kill(holderPID, 0) == 0 || errno == EPERM
    }
}

/// What taking leases got.
package struct LeaseGrant: Sendable {
    /// Taken now; to be given back by the taker.
    package var taken: Set<Int64> = []
    /// Held by this holder already (taken by an enclosing step, which gives them back).
    package var alreadyHeld: Set<Int64> = []
    /// Held by another live process.
    package var heldElsewhere: [Int64: LeaseRecord] = [:]
}

/// What taking one account's lease found.
package enum LeaseTaking: Sendable, Equatable {
    /// Taken now; to be given back by the taker.
    case taken
    /// Held by this holder already (taken by an enclosing step, which gives it back).
    case alreadyHeld
    /// Held by another live process.
    case heldElsewhere(LeaseRecord)
    /// The account's records changed since the run read them: nothing was taken.
    case recordsChanged
    /// The account is signed out.
    case gone
}

extension StateStore {
    /// How long a lease lasts when its process is alive but never gives it back (a process
    /// stopped by a debugger, say): longer than any reconcile of one account can take.
    package static let leaseDuration: Duration = .seconds(15 * 60)

    /// Takes the lease of every account in `ids` that no other live process holds, in one
    /// short transaction.
    package func takeLeases(_ ids: [Int64], holder: LeaseHolder, now: Date = Date()) throws -> LeaseGrant {
        try write { database in
            var grant = LeaseGrant()
            for id in ids {
                switch try Self.take(id, holder: holder, now: now, database) {
                case .taken: grant.taken.insert(id)
                case .alreadyHeld: grant.alreadyHeld.insert(id)
                case .heldElsewhere(let lease): grant.heldElsewhere[id] = lease
                case .recordsChanged, .gone: break
                }
            }
            return grant
        }
    }

    /// Takes one account's lease before a run's first write for it, only while its records are
    /// still `expected` (what the run planned from).
    package func takeLease(ofAccount id: Int64, holder: LeaseHolder, ifRecords expected: [RegistrationRecord], now: Date = Date()) throws
        -> LeaseTaking
    {
        try write { database in
            guard try Self.registrations(ofAccount: id, database) == expected else { return .recordsChanged }
            return try Self.take(id, holder: holder, now: now, database)
        }
    }

    private static func take(_ id: Int64, holder: LeaseHolder, now: Date, _ database: Database) throws(SQLiteError) -> LeaseTaking {
        // A signed-out account has nothing left to lease.
        guard try database.row("SELECT 1 FROM accounts WHERE id = ?", .integer(id), map: { _ in true }) ?? false else { return .gone }
        if let lease = try Self.lease(ofAccount: id, database) {
            if lease.holderPID == holder.pid && lease.holderID == holder.id { return .alreadyHeld }
            if lease.isLive(at: now) { return .heldElsewhere(lease) }
        }
        let expires = now.addingTimeInterval(Double(Self.leaseDuration.components.seconds))
        try database.run(
            """
            INSERT OR REPLACE INTO account_leases (account_id, holder_pid, holder_id, taken_at, expires_at)
            VALUES (?, ?, ?, ?, ?)
            """,
            .integer(id), .integer(Int64(holder.pid)), .text(holder.id), .text(Timestamp.format(now)), .text(Timestamp.format(expires))
        )
        return .taken
    }

    /// Gives back the leases `holder` holds among `ids`.
    package func releaseLeases(_ ids: some Sequence<Int64>, holder: LeaseHolder) throws {
        let ids = Array(ids)
        guard !ids.isEmpty else { return }
        try write { database in
            for id in ids {
                try database.run(
                    "DELETE FROM account_leases WHERE account_id = ? AND holder_pid = ? AND holder_id = ?",
                    .integer(id), .integer(Int64(holder.pid)), .text(holder.id)
                )
            }
        }
    }

    /// Every lease on record, live or not.
    package func leases() throws -> [LeaseRecord] {
        try access { database in try Self.allLeases(database) }
    }

    static func allLeases(_ database: Database) throws(SQLiteError) -> [LeaseRecord] {
        try database.rows("SELECT account_id, holder_pid, holder_id, taken_at, expires_at FROM account_leases", map: LeaseRecord.init(row:))
    }

    private static func lease(ofAccount id: Int64, _ database: Database) throws(SQLiteError) -> LeaseRecord? {
        try database.row(
            "SELECT account_id, holder_pid, holder_id, taken_at, expires_at FROM account_leases WHERE account_id = ?",
            .integer(id), map: LeaseRecord.init(row:)
        )
    }
}
