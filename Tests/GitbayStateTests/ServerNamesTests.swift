import Foundation
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport

@Suite("Server names")
struct ServerNamesTests {
    static func url(_ text: String) -> InstanceURL { try! InstanceURL(parsing: text) }
    static func proof(_ a: String, _ b: String, at seconds: Double = 0) -> SameServerRecord {
        SameServerRecord(instance: url(a), other: url(b), deviceID: 1, added: "t", provenAt: Date(timeIntervalSince1970: seconds))
    }

    @Test("proven pairs join into servers, named by their first URL; others stay servers of their own")
    func classes() {
        let names = ServerNames(proofs: [
            Self.proof("http://localhost:8080", "http://127.0.0.1:8080"), Self.proof("https://git.example", "https://alias.example"),
            Self.proof("https://alias.example", "https://other.example"),
        ])
        #expect(names.server(of: Self.url("http://localhost:8080")) == Self.url("http://127.0.0.1:8080"))
        #expect(names.areSame(Self.url("https://git.example"), Self.url("https://other.example")))
        #expect(!names.areSame(Self.url("https://git.example"), Self.url("http://localhost:8080")))
        #expect(
            names.names(of: Self.url("https://other.example")).map(\.description) == [
                "https://alias.example", "https://git.example", "https://other.example",
            ])
        #expect(names.names(of: Self.url("https://lone.example")) == [Self.url("https://lone.example")])
        #expect(ServerNames.none.server(of: Self.url("https://lone.example")) == Self.url("https://lone.example"))
    }

    @Test("of the choices made on a server's URLs, the latest holds")
    func latestPreferenceHolds() {
        let names = ServerNames(proofs: [Self.proof("http://localhost:8080", "http://127.0.0.1:8080")])
        let preferred = names.preferred([
            (Self.url("http://127.0.0.1:8080"), 1, Date(timeIntervalSince1970: 10)),
            (Self.url("http://localhost:8080"), 2, Date(timeIntervalSince1970: 20)),
            (Self.url("https://lone.example"), 3, nil),
        ])
        #expect(preferred == [Self.url("http://127.0.0.1:8080"): 2, Self.url("https://lone.example"): 3])
    }

    @Test("a proof is kept, and recorded once")
    func stored() async throws {
        let folder = try TemporaryDirectory()
        let store = try await StateStore.open(StateLocation(databasePath: folder.databasePath))
        let proof = Self.proof("http://localhost:8080", "http://127.0.0.1:8080", at: 5)
        #expect(try await store.recordSameServer(proof))
        #expect(!(try await store.recordSameServer(proof)))
        #expect(try await store.serverNames().proofs == [proof])
    }
}
