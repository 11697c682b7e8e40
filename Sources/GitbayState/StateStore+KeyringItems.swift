/// Which keyring items hold the accounts' tokens: the one each account's token is read from,
/// and those of its stale tokens that a run or a removal still has to delete.
extension StateStore {
    /// The keyring item (its `account` attribute) holding each account's token, for the
    /// accounts whose token the keyring holds, by account id: the one `api_tokens.keyring_item`
    /// names, else the item named after the account.
    package func keyringItems() throws -> [Int64: String] {
        let rows = try access { database in
            try database.rows(
                """
                SELECT t.account_id AS account_id, COALESCE(t.keyring_item, a.name) AS item
                FROM api_tokens t JOIN accounts a ON a.id = t.account_id WHERE t.store = 'keyring'
                """
            ) { row throws(SQLiteError) in (try row.int64("account_id"), try row.text("item")) }
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    /// Every keyring item the account's tokens are, or may be, kept in: its current token's,
    /// when the keyring holds it, then its stale tokens'. A removal deletes them all once the
    /// account is gone.
    package func allKeyringItems(ofAccount id: Int64) throws -> [String] {
        let stale = try access { database in
            try database.rows(
                "SELECT keyring_item FROM stale_api_tokens WHERE account_id = ? AND keyring_item IS NOT NULL ORDER BY recorded_at, name",
                .integer(id)
            ) { row throws(SQLiteError) in try row.text("keyring_item") }
        }
        let current = try keyringItems()[id].map { [$0] } ?? []
        var seen: Set<String> = []
        return (current + stale).filter { seen.insert($0).inserted }
    }
}
