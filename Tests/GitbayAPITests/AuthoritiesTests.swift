import Foundation
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayCurl

/// Where a transfer's certificate authorities come from, and how libcurl's default folder is
/// recognised.
@Suite("Certificate authorities")
struct AuthoritiesTests {
    @Test("SSL_CERT_FILE and SSL_CERT_DIR each replace libcurl's default; its bundle is left out while its hashed folder is in use")
    func choice() {
        typealias Choice = Authorities
        let bundle = "/etc/ssl/certs/ca-certificates.crt", system = "/etc/ssl/certs"
        let debian = Choice.Defaults(file: bundle, hashedFolder: system)
        #expect(Choice.choose(file: "/ca.pem", folder: nil, defaults: debian) == Choice(file: .path("/ca.pem"), folder: .libcurlDefault))
        #expect(
            Choice.choose(file: "/ca.pem", folder: "/mine", defaults: .init())
                == Choice(file: .path("/ca.pem"), folder: .path("/mine")))
        // A folder of one's own: the system's bundle stays, as for OpenSSL's tools.
        #expect(Choice.choose(file: nil, folder: "/mine", defaults: debian) == Choice(file: .libcurlDefault, folder: .path("/mine")))
        // The system's folder, by default or named: the bundle beside it is left out.
        #expect(Choice.choose(file: nil, folder: nil, defaults: debian) == Choice(file: .none, folder: .libcurlDefault))
        #expect(Choice.choose(file: nil, folder: system, defaults: debian) == Choice(file: .none, folder: .path(system)))
        #expect(Choice.choose(file: nil, folder: system + "/", defaults: debian) == Choice(file: .none, folder: .path(system + "/")))
        #expect(Choice.choose(file: nil, folder: system + "//", defaults: debian) == Choice(file: .none, folder: .path(system + "//")))
        #expect(Choice.choose(file: nil, folder: system + "s", defaults: debian) == Choice(file: .libcurlDefault, folder: .path(system + "s")))
        #expect(Choice.choose(file: nil, folder: "/etc/ssl", defaults: debian) == Choice(file: .libcurlDefault, folder: .path("/etc/ssl")))
        // The root stays the root.
        #expect(Choice.choose(file: nil, folder: "//", defaults: .init(file: nil, hashedFolder: "/")) == Choice(file: .none, folder: .path("//")))
        // Naming libcurl's own bundle names nothing else: the folder alone still.
        #expect(Choice.choose(file: bundle, folder: nil, defaults: debian) == Choice(file: .none, folder: .libcurlDefault))
        #expect(Choice.choose(file: bundle, folder: "/mine", defaults: debian) == Choice(file: .libcurlDefault, folder: .path("/mine")))
        // No hashed default folder: libcurl's defaults.
        let bundleOnly = Choice.Defaults(file: bundle, hashedFolder: nil)
        #expect(Choice.choose(file: nil, folder: nil, defaults: bundleOnly) == Choice(file: .libcurlDefault, folder: .libcurlDefault))
        #expect(Choice.choose(file: bundle, folder: nil, defaults: bundleOnly) == Choice(file: .libcurlDefault, folder: .libcurlDefault))
        #expect(Choice.choose(file: nil, folder: system, defaults: .init()) == Choice(file: .libcurlDefault, folder: .path(system)))
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
