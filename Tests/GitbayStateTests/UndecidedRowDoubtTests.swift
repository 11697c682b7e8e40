import Foundation
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport

@Suite("Rows removed as not settled")
struct UndecidedRowDoubtTests {
    @Test(
        "a row an account removed as not settled, which another name had recorded with its id, added and token, leaves that name a doubt naming the row"
    )
    func undecidedRowsDoubted() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(folder.location)
        let alice = try await store.signIn(instance: try InstanceURL(parsing: "http://127.0.0.1:4000"), username: "alice", apiToken: Secret("gb_a"))
        let erin = try await store.signIn(instance: try InstanceURL(parsing: "http://localhost:4000"), username: "erin", apiToken: Secret("gb_e"))
        let token = TokenIdentity(fingerprint: String(repeating: "ab", count: 32), length: 32, shown: "c0ffee00…")
        let before = Date(timeIntervalSince1970: 1_800_000_000)
        try await store.recordRegistration(
            RegistrationRecord(accountID: alice.id, deviceID: 2, added: "2026-12-07T03:15:34.400Z", token: token, generation: 2, madeAt: before))
        let erinsRow = RegistrationRecord(accountID: erin.id, deviceID: 1, added: nil, token: token, generation: 2, madeAt: before + 2)

        // Without the rows it removed, erin's new row (another id) doubts nothing of alice's.
        try await store.recordRegistration(erinsRow, afterAddSentAt: before + 1)
        #expect(try await store.rowDoubt(ofAccount: alice.id) == nil)

        try await store.recordRegistration(
            erinsRow, afterAddSentAt: before + 1, undecided: [(2, "2026-12-07T03:15:34.400Z"), (1, nil)])
        let doubt = try #require(try await store.rowDoubt(ofAccount: alice.id))
        #expect(doubt.deviceID == 2 && doubt.added == "2026-12-07T03:15:34.400Z" && doubt.instance == erin.instance.description)
        #expect(try await store.rowDoubt(ofAccount: erin.id) == nil)

        // The row made afresh got the id of the one removed (ids are reused): another `added`, another row.
        let carol = try await store.signIn(instance: try InstanceURL(parsing: "http://127.0.0.1:4000"), username: "carol", apiToken: Secret("gb_c"))
        try await store.recordRegistration(
            RegistrationRecord(accountID: carol.id, deviceID: 5, added: "2026-12-07T03:15:35.100Z", token: token, generation: 2, madeAt: before))
        let reused = RegistrationRecord(
            accountID: erin.id, deviceID: 5, added: "2026-12-07T03:15:36.200Z", token: token, generation: 2, madeAt: before + 2)
        try await store.recordRegistration(reused, afterAddSentAt: before + 1, undecided: [(5, "2026-12-07T03:15:35.100Z")])
        #expect(try await store.rowDoubt(ofAccount: carol.id)?.deviceID == 5)
    }
}
