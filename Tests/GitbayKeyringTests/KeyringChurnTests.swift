import GitbayKeyring
import GitbaySupport
import TestSupport
import Testing

/// Reads of a real Secret Service while another client writes and deletes items: what a run
/// sees while another gitbay-sync rotates a token into an item of its own and deletes the old.
@Suite("Secret Service keyring under churn", .timeLimit(.minutes(2)))
struct KeyringChurnTests {
    @Test("an item deleted while a read is under way never fails the read nor hides another item")
    func readsDuringDeletes() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let reader = SecretServiceKeyring(environment: session.environment)
        let writer = SecretServiceKeyring(environment: session.environment)
        try await reader.store(Secret("gb_steady"), for: "alice@gitbay.org")

        async let churned: Void = {
            for index in 0..<150 {
                try await writer.store(Secret("gb_churn_\(index)"), for: "bob@gitbay.org r\(index)")
                try await writer.delete(account: "bob@gitbay.org r\(index)")
            }
        }()
        var failures: [String] = []
        for _ in 0..<150 {
            do {
                let read = try await reader.readAll()
                if read["alice@gitbay.org"] != Secret("gb_steady") { failures.append("the steady item was missing") }
            } catch {
                failures.append(error.description)
            }
        }
        try await churned

        #expect(failures.isEmpty, "\(failures.count) of 150 reads: \(Set(failures))")
    }
}
