import Foundation
import TestSupport
import Testing

@testable import GitbayState

/// Text is bound as its UTF-8 bytes, in place.
@Suite("Binding text")
struct DatabaseBindingTests {
    @Test("the empty string stays text, not NULL; short, long and non-ASCII strings and an inner NUL keep every byte")
    func textKeepsItsBytes() throws {
        let folder = try TemporaryDirectory()
        let database = try Database(path: folder.file("binding.db"))
        try database.execute("CREATE TABLE t (v TEXT)")
        let values = ["", "a", "2026-11-30T01:29:43.736Z", "é✓ 🙂", String(repeating: "x", count: 5_000), "a\u{0}b"]
        for value in values {
            try database.run("INSERT INTO t (v) VALUES (?)", .text(value))
        }
        let stored = try database.rows("SELECT typeof(v) AS type, hex(v) AS bytes FROM t ORDER BY rowid") { row throws(SQLiteError) in
            (try row.text("type"), try row.text("bytes"))
        }
        #expect(stored.map(\.0) == Array(repeating: "text", count: values.count))
        #expect(stored.map(\.1) == values.map { $0.utf8.map { String(format: "%02X", $0) }.joined() })
        // Bound values are compared as text too: a lookup by a bound string finds its row.
        let found = try database.rows("SELECT count(*) AS found FROM t WHERE v = ?", .text("é✓ 🙂")) { row throws(SQLiteError) in
            try row.int64("found")
        }
        #expect(found == [1])
    }
}
