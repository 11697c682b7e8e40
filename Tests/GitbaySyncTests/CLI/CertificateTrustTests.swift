import Foundation
import GitbayFake
import TestSupport
import Testing

/// `SSL_CERT_FILE` and `SSL_CERT_DIR` name the certificate authorities gitbay-sync trusts for
/// `https` instances: the built binary, with and without them, against a test server behind
/// the TLS front (`scripts/h2-tls-front`), whose throwaway authority no system trusts.
@Suite("Trusting an https instance's authority")
struct CertificateTrustTests {
    static let deviceToken = "c0ffee00aaaabbbbccccddddeeeeffff"

    @Test("without SSL_CERT_FILE login and run fail the TLS check (exit 69, then 1); with it both succeed")
    func certificateFile() async throws {
        let server = try FakeGitbayServer()
        let front = try TLSFront(upstream: server.baseURL)
        defer {
            front.stop()
            server.stop()
        }
        let folder = try TemporaryDirectory()
        let untrusting = try BuiltBinary.located(in: folder)
        let trusting = try BuiltBinary.located(in: folder, adding: ["SSL_CERT_FILE": front.certificateAuthority])
        let token = server.mintToken(for: "alice")

        let refused = try await untrusting.run(["login", front.url], stdin: token + "\n")
        #expect(refused.code == 69, "\(refused.err)")
        #expect(refused.err.contains("the TLS handshake or certificate check failed"), "\(refused.err)")
        #expect(refused.err.contains("SSL_CERT_FILE or SSL_CERT_DIR"), "the fix is named: \(refused.err)")
        #expect(try front.stats().requests == 0)
        #expect(!FileManager.default.fileExists(atPath: untrusting.databasePath), "a refused login leaves no database")

        let login = try await trusting.run(["login", front.url], stdin: token + "\n")
        #expect(login.code == 0, "\(login.err)")
        #expect(try await trusting.run(["device", "set-token"], stdin: Self.deviceToken).code == 0)
        let run = try await trusting.run(["run"])
        #expect(run.code == 0, "\(run.err)")
        #expect(server.devices(of: "alice").map(\.token) == [Self.deviceToken])

        // The account is kept; a run that no longer trusts the authority fails it.
        let failed = try await untrusting.run(["run", "--now"])
        #expect(failed.code == 1, "\(failed.err)")
        #expect(failed.err.contains("TLS"), "\(failed.err)")
    }

    @Test("SSL_CERT_DIR, a folder of hashed authority names, is trusted as well")
    func certificateFolder() async throws {
        let server = try FakeGitbayServer()
        let front = try TLSFront(upstream: server.baseURL)
        defer {
            front.stop()
            server.stop()
        }
        let folder = try TemporaryDirectory()
        let authorities = folder.file("authorities")
        try FileManager.default.createDirectory(atPath: authorities, withIntermediateDirectories: true)
        let hash = try ChildProcess.run(
            "/usr/bin/env", ["openssl", "x509", "-hash", "-noout", "-in", front.certificateAuthority],
            environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], output: folder.file("hash"))
        #expect(hash.ending.code == 0, "\(hash.output)")
        let name = hash.output.trimmingCharacters(in: .whitespacesAndNewlines) + ".0"
        try FileManager.default.copyItem(atPath: front.certificateAuthority, toPath: authorities + "/" + name)

        let trusting = try BuiltBinary.located(in: folder, adding: ["SSL_CERT_DIR": authorities])
        let login = try await trusting.run(["login", front.url], stdin: server.mintToken(for: "alice") + "\n")
        #expect(login.code == 0, "\(login.err)")
    }
}
