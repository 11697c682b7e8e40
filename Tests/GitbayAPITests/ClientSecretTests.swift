import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbaySupport

@Suite("GitbayClient secrets")
struct ClientSecretTests {
    @Test("a known token never appears in logs, errors, URLs or argv")
    func tokensStayPut() async throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let apiToken = server.mintToken(for: "alice")
        let pushToken = GitbayClientTests.pushToken
        let logs = LogCapture()
        let client = try TestClients.make(server, token: apiToken, logger: logs.logger)

        var errors: [GitbayError] = []
        _ = try await client.whoami()
        let id = try #require(try await client.addDevice(token: Secret(pushToken), label: "laptop").id)
        _ = try await client.listDevices(ifNoneMatch: nil)
        server.inject(.status(502, body: "<html>\(apiToken)</html>"), command: "whoami", times: 3)
        server.inject(
            .status(403, body: #"{"protocol_version":1,"error":"token \#(apiToken) and \#(pushToken) denied","exit_code":4}"#),
            command: "notifications settings show")
        for call in [ClientCall.whoami, .settings] {
            do { try await call.run(client) } catch { errors.append(error) }
        }
        server.pushEnabled = false
        do { _ = try await client.addDevice(token: Secret(pushToken), label: "laptop") } catch { errors.append(error) }
        _ = try await client.removeDevice(id: id)

        #expect(errors.count == 3)
        #expect(!logs.all.isEmpty)
        for secret in [apiToken, pushToken] {
            for line in logs.all { #expect(!line.contains(secret)) }
            for error in errors {
                #expect(!error.description.contains(secret))
                #expect(!(error.serverMessage ?? "").contains(secret))
                #expect(!String(reflecting: error).contains(secret))
            }
            for request in server.requests() {
                #expect(!request.path.contains(secret))
                #expect(!(request.query ?? "").contains(secret))
                #expect(!request.argv.contains { $0.contains(secret) })
            }
        }
        for request in server.requests() {
            #expect(request.headers["authorization"] == "Bearer \(apiToken)")
            #expect(request.stdin == nil || request.stdin == pushToken)
        }
    }
}
