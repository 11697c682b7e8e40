/// One schema change, as written in `Migrations/NNNN_name.sql`.
package struct Migration: Sendable, Equatable {
    /// The number the file name starts with; migrations apply in this order.
    package let version: Int
    /// The rest of the file name, without the extension.
    package let name: String
    /// The file's SQL text.
    package let sql: String
    /// A fingerprint of the SQL text (64-bit FNV-1a, 16 hex digits), recorded when applied so
    /// that a migration edited after release is noticed. Every opening of the database
    /// compares it with what the database records.
    package let checksum: String

    package init(version: Int, name: String, sql: String) {
        self.init(version: version, name: name, checksum: Self.fingerprint(sql), sql: sql)
    }

    /// A migration whose fingerprint was worked out when it was embedded
    /// (scripts/generate-migrations), so that no run hashes the schema again.
    init(version: Int, name: String, checksum: String, sql: String) {
        self.version = version
        self.name = name
        self.checksum = checksum
        self.sql = sql
    }

    static func fingerprint(_ sql: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sql.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
