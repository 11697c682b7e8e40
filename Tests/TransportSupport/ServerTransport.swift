import GitbayAPI
import GitbayCurl
import GitbayURLSession

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The transport of the tests that drive the command line or the core against test servers
/// over real HTTP on 127.0.0.1: libcurl, as the agent sends, or URLSession, as an app does,
/// when `GITBAY_SYNC_TEST_TRANSPORT=urlsession`. `scripts/test` runs those tests over each.
/// The tests of one transport's own behaviour (TLS, connection sharing, handle reuse) keep
/// naming theirs.
package enum ServerTransport: String, Sendable {
    case curl
    case urlSession = "urlsession"

    /// The one this process's tests use.
    package static let chosen: ServerTransport = {
        let name = ProcessInfo.processInfo.environment["GITBAY_SYNC_TEST_TRANSPORT"] ?? ServerTransport.curl.rawValue
        guard let kind = ServerTransport(rawValue: name) else {
            fatalError("GITBAY_SYNC_TEST_TRANSPORT=\(name): say curl or urlsession")
        }
        return kind
    }()

    /// One transport of the chosen kind shared by the tests (libcurl's process-wide one).
    package static let shared: any HTTPTransport = chosen == .curl ? CurlTransport.shared : URLSessionTransport()

    /// A transport of this kind with connections of its own.
    package func make() -> any HTTPTransport {
        switch self {
        case .curl: CurlTransport(pool: ConnectionPool())
        case .urlSession: URLSessionTransport()
        }
    }

    /// How the tests' output names it.
    package var name: String {
        switch self {
        case .curl: "libcurl"
        case .urlSession: "URLSession"
        }
    }
}
