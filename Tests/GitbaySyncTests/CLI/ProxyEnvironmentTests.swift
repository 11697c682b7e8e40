import Foundation
import GitbayFake
import TestSupport
import Testing

/// Proxy variables are curl's to honour: the built binary sends its requests through the
/// proxy `http_proxy` names (here a second test server, which answers the proxied request
/// with its 404 page), skips it for hosts in `no_proxy`, and goes direct when none is set.
@Suite("Proxy variables")
struct ProxyEnvironmentTests {
    @Test("http_proxy routes requests through the proxy; no_proxy and an unset http_proxy go direct")
    func proxyVariables() async throws {
        let server = try FakeGitbayServer()
        let proxy = try FakeGitbayServer()
        defer {
            server.stop()
            proxy.stop()
        }
        let token = server.mintToken(for: "alice")
        let folders = (try TemporaryDirectory(), try TemporaryDirectory(), try TemporaryDirectory())

        let proxied = try BuiltBinary.located(in: folders.0, adding: ["http_proxy": proxy.baseURL])
        let refused = try await proxied.run(["login", server.baseURL], stdin: token + "\n")
        #expect(refused.code != 0, "the proxy answered, not the server: \(refused.err)")
        #expect(server.requests().isEmpty)
        #expect(proxy.connectionCount > 0)

        let bypassing = try BuiltBinary.located(in: folders.1, adding: ["http_proxy": proxy.baseURL, "no_proxy": "127.0.0.1"])
        let connections = proxy.connectionCount
        let bypassed = try await bypassing.run(["login", server.baseURL], stdin: token + "\n")
        #expect(bypassed.code == 0, "\(bypassed.err)")
        #expect(proxy.connectionCount == connections)

        let direct = try await BuiltBinary.located(in: folders.2).run(["login", server.baseURL], stdin: token + "\n")
        #expect(direct.code == 0, "\(direct.err)")
        #expect(proxy.connectionCount == connections)
    }
}
