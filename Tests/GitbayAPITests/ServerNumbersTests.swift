import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbaySupport

/// What a server's ids and tags can be before the client takes them: a row id is a whole
/// number from 1 (anything else is a malformed answer, never a trap or a `device remove -5`),
/// and an `ETag` is kept only when it can be sent back.
@Suite("Ids and tags from a server")
struct ServerNumbersTests {
    static func list(id: String) -> String {
        #"{"protocol_version":1,"data":[{"id":\#(id),"label":"laptop","token":"3f2a9c01…","added":"2026-09-20T14:03:07.123Z"}],"exit_code":0}"#
    }

    @Test(
        "a device list whose id is not a row id is a malformed answer",
        arguments: ["0", "-5", "1e30", "9223372036854775808", "-9223372036854775809", "1.5", "\"12\"", "null"])
    func listedID(_ id: String) async throws {
        let server = try FakeGitbayServer()
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"), retry: .never)
        server.inject(.status(200, body: Self.list(id: id)), command: "notifications device list")
        let error = await #expect(throws: GitbayError.self) { _ = try await client.listDevices(ifNoneMatch: nil) }
        #expect(error?.kind == .malformed, "id \(id)")
    }

    @Test("the largest row id a server can give is read as it is")
    func largestID() async throws {
        let server = try FakeGitbayServer()
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"), retry: .never)
        server.inject(.status(200, body: Self.list(id: "9223372036854775807")), command: "notifications device list")
        guard case .list(let rows, _) = try await client.listDevices(ifNoneMatch: nil) else {
            Issue.record("a list was answered")
            return
        }
        #expect(rows.map(\.id) == [Int.max])
    }

    @Test("a device add whose id is not a row id is a malformed answer", arguments: ["0", "-1", "1e30", "18446744073709551616"])
    func addedID(_ id: String) async throws {
        let server = try FakeGitbayServer()
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"), retry: .never)
        server.inject(
            .status(200, body: #"{"protocol_version":1,"data":{"id":\#(id),"status":"registered"},"exit_code":0}"#),
            command: "notifications device add")
        let error = await #expect(throws: GitbayError.self) { _ = try await client.addDevice(token: Secret("c0ffee00aaaa"), label: "x") }
        #expect(error?.kind == .malformed, "id \(id)")
    }

    @Test(
        "an ETag is kept only when it can be sent back as If-None-Match",
        arguments: [
            ("\"9b1c\"", "\"9b1c\""), ("W/\"9b1c\"", "W/\"9b1c\""), (String(repeating: "a", count: 256), String(repeating: "a", count: 256)),
            (String(repeating: "a", count: 257), nil), ("\"9b\u{01}1c\"", nil), ("\"9b 1c\"", nil), ("\"9b\u{7F}\"", nil),
        ] as [(String, String?)])
    func entityTag(_ sent: String, _ kept: String?) async throws {
        let server = try FakeGitbayServer()
        let client = try TestClients.make(server, token: server.mintToken(for: "alice"), retry: .never)
        server.inject(
            .status(200, body: #"{"protocol_version":1,"data":[],"exit_code":0}"#, headers: ["ETag": sent]), command: "notifications device list")
        #expect(try await client.listDevices(ifNoneMatch: nil) == .list([], etag: kept))
        // What is kept can be sent back.
        if let kept { _ = try await client.listDevices(ifNoneMatch: kept) }
    }
}
