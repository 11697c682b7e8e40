import Foundation
import GitbayKeyring
import GitbaySupport
import TestSupport
import Testing

/// Every keyring call opens a session of its own (a GLib main context, a D-Bus connection):
/// a run under the timer makes such calls every cycle for as long as it runs, so a session
/// must give back every descriptor it took.
@Suite("Secret Service sessions", .timeLimit(.minutes(2)))
struct KeyringDescriptorTests {
    /// This process's descriptors that are GLib wake-ups (`eventfd`), as `/proc/self/fd` names them.
    static func eventDescriptors() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) == "anon_inode:[eventfd]"
        }.count
    }

    @Test("eighty reads leave no descriptor behind")
    func noDescriptorLeft() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let keyring = SecretServiceKeyring(environment: session.environment)
        try await keyring.store(Secret("gb_alice"), for: "alice@gitbay.org")

        let before = Self.eventDescriptors()
        for _ in 0..<80 { _ = try await keyring.readAll() }
        let after = Self.eventDescriptors()
        // Other tests run meanwhile and may hold some of their own for a moment (a dozen or
        // two on a loaded machine); a leak of one a read would leave eighty.
        #expect(after - before < 40, "\(after - before) more eventfd descriptors after 80 reads")
    }
}
