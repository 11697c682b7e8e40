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

    /// The fewest of the process's GLib wake-ups over fifty samples 20 ms apart.
    static func fewestEventDescriptors() async throws -> Int {
        var fewest = Int.max
        for _ in 0..<50 {
            fewest = min(fewest, eventDescriptors())
            try await Task.sleep(for: .milliseconds(20))
        }
        return fewest
    }

    @Test("two hundred reads leave no descriptor behind")
    func noDescriptorLeft() async throws {
        let session = try await SecretServiceSession.start()
        defer { session.stop() }
        let keyring = SecretServiceKeyring(environment: session.environment)
        try await keyring.store(Secret("gb_alice"), for: "alice@gitbay.org")

        let before = try await Self.fewestEventDescriptors()
        for _ in 0..<200 { _ = try await keyring.readAll() }
        let after = try await Self.fewestEventDescriptors()
        // Other tests run meanwhile and hold some of their own for a moment (up to 41 seen on a
        // loaded machine): the fewest seen over a second leaves most of them out. A leak of one
        // a read would leave two hundred.
        #expect(after - before < 100, "\(after - before) more eventfd descriptors after 200 reads")
    }
}
