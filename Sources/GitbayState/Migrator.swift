internal import CSQLite
import GitbaySupport

/// Brings a database's schema up to date with the migrations built into this binary.
///
/// Everything is checked before anything is written: a database holding a migration this
/// binary does not know, or one recorded with another checksum, is refused untouched.
struct Migrator {
    let migrations: [Migration]

    init(migrations: [Migration] = Migration.all) {
        self.migrations = migrations
    }

    /// The migrations the database records, by version, read without writing anything.
    static func recorded(in database: Database) throws(SQLiteError) -> [Int: (name: String, checksum: String)] {
        let exists =
            try database.row(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
            ) { _ in true } ?? false
        guard exists else { return [:] }
        let rows = try database.rows("SELECT version, name, checksum FROM schema_migrations") { row throws(SQLiteError) in
            (try row.int("version"), try row.text("name"), try row.text("checksum"))
        }
        return Dictionary(rows.map { ($0.0, (name: $0.1, checksum: $0.2)) }, uniquingKeysWith: { first, _ in first })
    }

    /// Refuses a database this binary must not alter. Reads only; returns the migrations it
    /// found recorded.
    @discardableResult
    func validate(_ database: Database) throws -> [Int: (name: String, checksum: String)] {
        let recorded = try Self.recorded(in: database)
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        let unknown = recorded.keys.filter { known[$0] == nil }.sorted()
        if !unknown.isEmpty {
            throw StoreError.newerSchema(path: database.path, unknownVersions: unknown)
        }
        for (version, entry) in recorded.sorted(by: { $0.key < $1.key }) {
            if let migration = known[version], migration.checksum != entry.checksum {
                throw StoreError.changedMigration(path: database.path, version: version, name: entry.name)
            }
        }
        return recorded
    }

    /// Applies every migration not yet recorded, each in its own `BEGIN IMMEDIATE`
    /// transaction with a foreign key check before commit (`validated`: what `validate` found,
    /// when it was just called). Returns the versions applied.
    @discardableResult
    func migrate(_ database: Database, now: String, validated: [Int: (name: String, checksum: String)]? = nil) throws -> [Int] {
        let recorded = try validated ?? validate(database)
        let pending = migrations.filter { recorded[$0.version] == nil }.sorted { $0.version < $1.version }
        guard !pending.isEmpty else { return [] }
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version    INTEGER PRIMARY KEY,
                name       TEXT NOT NULL,
                checksum   TEXT NOT NULL,
                applied_at TEXT NOT NULL
            ) STRICT
            """)
        for migration in pending {
            try database.transaction {
                // Another process may have applied it while this one waited for the write lock.
                let applied =
                    try database.row(
                        "SELECT 1 FROM schema_migrations WHERE version = ?", .int(migration.version)
                    ) { _ in true } ?? false
                guard !applied else { return }
                try database.execute(migration.sql)
                let violations = try database.rows("PRAGMA foreign_key_check") { row throws(SQLiteError) in try row.optionalText("table") ?? "?" }
                if !violations.isEmpty {
                    throw SQLiteError(
                        code: SQLITE_CONSTRAINT,
                        message:
                            "migration \(migration.version) leaves foreign key violations in \(Set(violations).sorted().joined(separator: ", "))",
                        sql: "PRAGMA foreign_key_check"
                    )
                }
                try database.run(
                    "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                    .int(migration.version), .text(migration.name), .text(migration.checksum), .text(now)
                )
            }
        }
        return pending.map(\.version)
    }
}
