import Foundation
import GitbayFake
import TestSupport
import Testing

/// What `token create --ttl` accepts: a Go duration or a number of days.
extension FakeTokenTests {
    /// A `--ttl` and the lifetime it gives in milliseconds, or nil where it is refused.
    struct LifetimeCase: Sendable, CustomTestStringConvertible {
        let ttl: String
        let milliseconds: Int64?
        var testDescription: String { "--ttl \(ttl.isEmpty ? "(empty)" : ttl)" }
    }

    static let hour: Int64 = 3_600_000

    static let lifetimeCases: [LifetimeCase] = [
        LifetimeCase(ttl: "30d", milliseconds: 30 * 24 * hour),
        LifetimeCase(ttl: "90d", milliseconds: 90 * 24 * hour),
        LifetimeCase(ttl: "720h", milliseconds: 720 * hour),
        LifetimeCase(ttl: "1h30m", milliseconds: 90 * 60_000),
        LifetimeCase(ttl: "1.5h", milliseconds: 90 * 60_000),
        LifetimeCase(ttl: "+2h", milliseconds: 2 * hour),
        LifetimeCase(ttl: "90s", milliseconds: 90_000),
        LifetimeCase(ttl: "2500ms", milliseconds: 2_500),
        LifetimeCase(ttl: "1h0m0.5s", milliseconds: hour + 500),
        LifetimeCase(ttl: "2562047h", milliseconds: 2_562_047 * hour),
        LifetimeCase(ttl: "106751d", milliseconds: 106_751 * 24 * hour),
        LifetimeCase(ttl: "2562048h", milliseconds: nil),
        LifetimeCase(ttl: "106752d", milliseconds: nil),
        LifetimeCase(ttl: "99999999999999999999d", milliseconds: nil),
        LifetimeCase(ttl: "0", milliseconds: nil),
        LifetimeCase(ttl: "0s", milliseconds: nil),
        LifetimeCase(ttl: "-1h", milliseconds: nil),
        LifetimeCase(ttl: "", milliseconds: nil),
        LifetimeCase(ttl: "30", milliseconds: nil),
        LifetimeCase(ttl: "1.5d", milliseconds: nil),
        LifetimeCase(ttl: "1d12h", milliseconds: nil),
        LifetimeCase(ttl: "d", milliseconds: nil),
        LifetimeCase(ttl: "1w", milliseconds: nil),
        LifetimeCase(ttl: ".h", milliseconds: nil),
        LifetimeCase(ttl: "1H", milliseconds: nil),
        LifetimeCase(ttl: "\u{661}d", milliseconds: nil),
    ]

    @Test("--ttl takes a Go duration or <N>d; anything else is a usage error", arguments: lifetimeCases)
    func lifetimes(_ example: LifetimeCase) throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        server.now = Self.start
        let token = server.mintToken(for: "alice")

        let response = try RawHTTP.command(server.port, token: token, Self.create("timed", ["--ttl", example.ttl]))

        guard let milliseconds = example.milliseconds else {
            #expect(response.status == 400)
            #expect(response.exitCode == 2)
            #expect(response.error?.contains("--ttl") == true)
            #expect(server.tokens(of: "alice").count == 1)
            return
        }
        #expect(response.status == 200)
        let minted = try #require(server.tokens(of: "alice").last)
        let expiresAt = try #require(minted.expiresAt)
        #expect(Int64(((expiresAt.timeIntervalSince1970 - Self.start.timeIntervalSince1970) * 1000).rounded()) == milliseconds)
    }
}
