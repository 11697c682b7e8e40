import Foundation
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySync

/// A database another process holds locked is busy, not broken: exit 75, "try again", and
/// nothing already stored is lost.
@Suite("A locked state database")
struct LockedDatabaseTests {
    @Test("device set-token against a database held with BEGIN EXCLUSIVE exits 75 with try again, and the stored token stays")
    func setTokenWhileLocked() async throws {
        let cli = try CLIHarness()
        #expect(await cli.run(["device", "set-token"], stdin: "aaaaaaaa11112222").code == 0)
        let other = try Database(path: cli.databasePath, mode: .readWrite)
        try other.execute("BEGIN EXCLUSIVE")
        let locked = await cli.run(["device", "set-token", "--json"], stdin: "bbbbbbbb33334444")
        try other.execute("COMMIT")
        #expect(locked.code == ExitCode.busy.rawValue, "\(locked.err)")
        #expect(locked.err.contains("locked by another process"), "\(locked.err)")
        #expect(locked.err.contains("Try again"))
        #expect(try locked.json()["error"].flatMap { ($0 as? [String: Any])?["kind"] as? String } == "busy")
        let shown = await cli.run(["device", "show", "--json"])
        #expect(shown.out.contains("aaaaaaaa"), "\(shown.out)")
        #expect(await cli.run(["device", "set-token"], stdin: "bbbbbbbb33334444").code == 0)
    }
}
