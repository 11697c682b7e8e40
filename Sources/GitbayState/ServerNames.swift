import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Two instance URLs found to name one server, and the row whose move proved it.
package struct SameServerRecord: Sendable, Equatable {
    package let instance: InstanceURL
    package let other: InstanceURL
    package let deviceID: Int
    package let added: String
    package let provenAt: Date

    package init(instance: InstanceURL, other: InstanceURL, deviceID: Int, added: String, provenAt: Date) {
        (self.instance, self.other) = instance < other ? (instance, other) : (other, instance)
        self.deviceID = deviceID
        self.added = added
        self.provenAt = provenAt
    }
}

/// Which instance URLs name one server, as proven by record: the URLs of a server are one
/// instance for the holder rule. A URL never proven the same as another is a server of its own.
package struct ServerNames: Sendable, Equatable {
    package let proofs: [SameServerRecord]
    /// Each URL proven the same as another, by the server's first URL in text order.
    private let server: [InstanceURL: InstanceURL]

    package static let none = ServerNames(proofs: [])

    package init(proofs: [SameServerRecord]) {
        self.proofs = proofs
        // Union by pairs until nothing changes: a handful of proofs at most.
        var server: [InstanceURL: InstanceURL] = [:]
        func root(_ url: InstanceURL) -> InstanceURL {
            var url = url
            while let next = server[url], next != url { url = next }
            return url
        }
        for proof in proofs {
            let (a, b) = (root(proof.instance), root(proof.other))
            guard a != b else { continue }
            let (first, second) = a < b ? (a, b) : (b, a)
            server[first] = first
            server[second] = first
        }
        self.server = Dictionary(uniqueKeysWithValues: server.keys.map { ($0, root($0)) })
    }

    /// The server `url` names, as its first URL: `url` itself unless proven the same as another.
    package func server(of url: InstanceURL) -> InstanceURL {
        server[url] ?? url
    }

    /// True when the two URLs name one server: equal, or proven the same.
    package func areSame(_ a: InstanceURL, _ b: InstanceURL) -> Bool {
        a == b || server(of: a) == server(of: b)
    }

    /// Every URL of the server `url` names, in text order; `url` alone unless proven the same
    /// as another.
    package func names(of url: InstanceURL) -> [InstanceURL] {
        guard let first = server[url] else { return [url] }
        return server.filter { $0.value == first }.map(\.key).sorted()
    }

    /// The account preferred on each server, from each URL's choice: the latest one made on
    /// any of its URLs (a choice of unknown time counts as the earliest).
    package func preferred(_ choices: [(instance: InstanceURL, accountID: Int64, at: Date?)]) -> [InstanceURL: Int64] {
        var latest: [InstanceURL: (accountID: Int64, at: Date)] = [:]
        for choice in choices {
            let at = choice.at ?? .distantPast
            let key = server(of: choice.instance)
            if let kept = latest[key], kept.at >= at { continue }
            latest[key] = (choice.accountID, at)
        }
        return latest.mapValues(\.accountID)
    }
}

extension StateStore {
    /// Which instance URLs were found to name one server.
    package func serverNames() throws -> ServerNames {
        try access { database in try Self.serverNames(database) }
    }

    static func serverNames(_ database: Database) throws(SQLiteError) -> ServerNames {
        let proofs = try database.rows("SELECT instance, other, device_id, added, proven_at FROM same_servers") { row throws(SQLiteError) in
            try SameServerRecord(row: row)
        }
        return ServerNames(proofs: proofs.compactMap { $0 })
    }

    /// The accounts of the server `instance` names, under any of its names, in sign-in order.
    package func accounts(onServerOf instance: InstanceURL) throws -> [AccountRecord] {
        let names = try serverNames()
        return try accounts().filter { names.areSame($0.instance, instance) }
    }

    /// The account whose API token this is, if one has it.
    package func account(holdingAPIToken token: Secret) throws -> AccountRecord? {
        try access { database in
            try database.row(
                "SELECT \(Self.accountColumns) FROM accounts WHERE id = (SELECT account_id FROM api_tokens WHERE token = ?)",
                .text(token.exposedValue)
            ) { row throws(SQLiteError) in try AccountRecord(row: row) }
        }
    }

    /// Records that two URLs name one server. What the accounts of both wanted changes (one
    /// holder for the two), so their remembered list tags and verdicts are forgotten. Returns
    /// false when it was known already.
    @discardableResult
    package func recordSameServer(_ proof: SameServerRecord) throws -> Bool {
        try write { database in
            try database.run(
                "INSERT OR IGNORE INTO same_servers (instance, other, device_id, added, proven_at) VALUES (?, ?, ?, ?, ?)",
                .text(proof.instance.description), .text(proof.other.description), .int(proof.deviceID), .text(proof.added),
                .text(Timestamp.format(proof.provenAt)))
            guard database.changes > 0 else { return false }
            let urls = try Self.serverNames(database).names(of: proof.instance)
            for url in urls { try Self.forgetListTags(database, instance: url) }
            // One server, one choice: the latest made under any of its names.
            let latest = try database.row(
                """
                SELECT instance FROM instances WHERE preferred_account_id IS NOT NULL AND instance IN (\(urls.map { _ in "?" }.joined(separator: ", ")))
                ORDER BY coalesce(preferred_at, '') DESC LIMIT 1
                """, bound: urls.map { .text($0.description) }
            ) { row throws(SQLiteError) in try row.text("instance") }
            if let latest { try Self.keepOnlyPreference(of: latest, among: urls, database) }
            return true
        }
    }

    /// Clears the preference of every URL in `urls` but `kept`'s.
    static func keepOnlyPreference(of kept: String, among urls: [InstanceURL], _ database: Database) throws(SQLiteError) {
        for url in urls where url.description != kept {
            try database.run(
                "UPDATE instances SET preferred_account_id = NULL, preferred_at = NULL WHERE instance = ?", .text(url.description))
        }
    }

    /// The preferred account of each server (`ServerNames.preferred`), read on `database`.
    static func preferredAccounts(_ database: Database, names: ServerNames) throws(SQLiteError) -> [InstanceURL: Int64] {
        let choices = try database.rows(
            "SELECT instance, preferred_account_id, preferred_at FROM instances WHERE preferred_account_id IS NOT NULL"
        ) { row throws(SQLiteError) in
            let (text, accountID, at) = (try row.text("instance"), try row.int64("preferred_account_id"), try row.optionalDate("preferred_at"))
            return (try? InstanceURL(parsing: text)).map { (instance: $0, accountID: accountID, at: at) }
        }
        return names.preferred(choices.compactMap { $0 })
    }
}
