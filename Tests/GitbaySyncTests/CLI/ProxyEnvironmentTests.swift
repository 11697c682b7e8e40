import Foundation
import GitbayFake
import TestSupport
import Testing

/// Proxy variables are curl's to honour, except for a loopback instance: one spoken to over
/// plain `http` would hand the proxy its bearer token in clear, and ask it to fetch its own
/// 127.0.0.1. The built binary reaches a loopback instance directly whatever variable is set,
/// and sends a remote one through the proxy, which then sees only a `CONNECT`.
@Suite("Proxy variables")
struct ProxyEnvironmentTests {
    @Test(
        "a loopback instance is reached directly: the proxy sees nothing",
        arguments: ["http_proxy", "ALL_PROXY", "all_proxy", "https_proxy", "HTTPS_PROXY"])
    func loopbackIsDirect(_ variable: String) async throws {
        let server = try FakeGitbayServer()
        let proxy = try RecordingListener()
        defer {
            server.stop()
            proxy.stop()
        }
        let token = server.mintToken(for: "alice")
        let folder = try TemporaryDirectory()
        let binary = try BuiltBinary.located(in: folder, adding: [variable: proxy.url])
        let login = try await binary.run(["login", server.baseURL], stdin: token + "\n")
        #expect(login.code == 0, "\(login.err)")
        #expect(try await binary.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let run = try await binary.run(["run"])
        #expect(run.code == 0, "\(run.err)")
        #expect(server.devices(of: "alice").count == 1)
        #expect(!server.requests().isEmpty)
        #expect(proxy.connections.isEmpty, "\(proxy.connections)")
    }

    @Test("a remote https instance goes through the proxy, which sees a CONNECT and never the token")
    func remoteThroughProxy() async throws {
        let proxy = try RecordingListener()
        defer { proxy.stop() }
        let token = "gb_proxytest0123456789"
        let folder = try TemporaryDirectory()
        let binary = try BuiltBinary.located(in: folder, adding: ["https_proxy": proxy.url])
        let login = try await binary.run(["login", "https://gitbay.test"], stdin: token + "\n")
        #expect(login.code != 0, "the proxy refused the tunnel: \(login.out)")
        let connections = proxy.connections
        #expect(!connections.isEmpty)
        #expect(connections.allSatisfy { $0.hasPrefix("CONNECT gitbay.test:443 ") }, "\(connections)")
        #expect(!connections.contains { $0.contains(token) || $0.lowercased().contains("authorization") }, "\(connections)")
    }
}
