import Foundation
import TestSupport
import Testing

@testable import GitbayAPI

/// Where a transfer's certificate authorities come from, and how libcurl's default folder is
/// recognised.
@Suite("Certificate authorities")
struct AuthoritiesTests {
    @Test("SSL_CERT_FILE and SSL_CERT_DIR each replace libcurl's default; its bundle is left out while its hashed folder is in use")
    func choice() {
        typealias Choice = Authorities
        let system = "/etc/ssl/certs"
        #expect(Choice.choose(file: "/ca.pem", folder: nil, defaultFolder: system) == Choice(file: .path("/ca.pem"), folder: .libcurlDefault))
        #expect(Choice.choose(file: "/ca.pem", folder: "/mine", defaultFolder: nil) == Choice(file: .path("/ca.pem"), folder: .path("/mine")))
        // A folder of one's own: the system's bundle stays, as for OpenSSL's tools.
        #expect(Choice.choose(file: nil, folder: "/mine", defaultFolder: system) == Choice(file: .libcurlDefault, folder: .path("/mine")))
        // The system's folder, by default or named: the bundle beside it is left out.
        #expect(Choice.choose(file: nil, folder: nil, defaultFolder: system) == Choice(file: .none, folder: .libcurlDefault))
        #expect(Choice.choose(file: nil, folder: system, defaultFolder: system) == Choice(file: .none, folder: .path(system)))
        #expect(Choice.choose(file: nil, folder: system + "/", defaultFolder: system) == Choice(file: .none, folder: .path(system + "/")))
        // No hashed default folder: libcurl's defaults.
        #expect(Choice.choose(file: nil, folder: nil, defaultFolder: nil) == Choice(file: .libcurlDefault, folder: .libcurlDefault))
        #expect(Choice.choose(file: nil, folder: system, defaultFolder: nil) == Choice(file: .libcurlDefault, folder: .path(system)))
    }

    @Test("a folder counts only when it holds a file under a hashed name")
    func hashedFolder() throws {
        let folder = try TemporaryDirectory()
        #expect(!CurlLibrary.holdsHashedAuthorities(folder.path), "empty")
        for name in ["README", "ca-certificates.crt", "5ad8a5d6.pem", "5AD8A5D6.0", "5ad8a5d.0", "5ad8a5d6.", "5ad8a5d6.0x"] {
            #expect(FileManager.default.createFile(atPath: folder.file(name), contents: Data()))
        }
        #expect(!CurlLibrary.holdsHashedAuthorities(folder.path), "no hashed name among them")
        #expect(FileManager.default.createFile(atPath: folder.file("5ad8a5d6.0"), contents: Data()))
        #expect(CurlLibrary.holdsHashedAuthorities(folder.path))
        #expect(!CurlLibrary.holdsHashedAuthorities(folder.file("missing")))
        #expect(CurlLibrary.isHashedName(Array("0123abcd.12".utf8)))
    }
}
