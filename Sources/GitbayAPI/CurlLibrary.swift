internal import CCurl

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libcurl, opened when the process sends its first request rather than linked. A command
/// that sends nothing (`status`, `accounts`, `resolve`, `--help`) then never loads it, nor the
/// thirty-odd libraries it brings (TLS, Kerberos, LDAP, SSH, IDN), whose loading and
/// relocation took about half of such a command's start.
///
/// `GITBAY_SYNC_LIBCURL` names another library file to open instead of the system's.
///
/// `@unchecked Sendable` invariant: `api` is filled once, before the library is published in
/// `loaded`, and never written again.
final class CurlLibrary: @unchecked Sendable {
    /// libcurl's entry points.
    let api: UnsafePointer<ccurl_api>

    private init(api: UnsafePointer<ccurl_api>) {
        self.api = api
    }

    /// The library file opened unless `GITBAY_SYNC_LIBCURL` names another.
    #if canImport(Darwin)
    static let systemPath = "/usr/lib/libcurl.4.dylib"
    #else
    static let systemPath = "libcurl.so.4"
    #endif

    /// The process's libcurl, opened and set up on first use; or why it cannot be used.
    static let loaded: Result<CurlLibrary, TransportError> = {
        let named = getenv("GITBAY_SYNC_LIBCURL").map { String(cString: $0) } ?? ""
        return open(named.isEmpty ? systemPath : named).flatMap(\.setUp)
    }()

    /// The entry points of the library `loaded` opened. Only for code that runs once `loaded`
    /// succeeded: a `ConnectionPool` makes its event loop and handles only then.
    static var api: UnsafePointer<ccurl_api> {
        guard case .success(let library) = loaded else {
            preconditionFailure("libcurl was used although it could not be opened")
        }
        return library.api
    }

    /// Opens the library file at `path` (a name alone is searched for as the loader does).
    static func open(_ path: String) -> Result<CurlLibrary, TransportError> {
        let api = UnsafeMutablePointer<ccurl_api>.allocate(capacity: 1)
        api.initialize(to: ccurl_api())
        if let reason = ccurl_open(path, api) {
            let detail = String(cString: reason)
            api.deallocate()
            return .failure(.libcurlUnavailable(path: path, detail: detail))
        }
        return .success(CurlLibrary(api: api))
    }

    /// Process-wide setup, once, before the first handle: curl's global state, and SIGPIPE
    /// ignored so that a peer closing a socket cannot kill the process.
    private var setUp: Result<CurlLibrary, TransportError> {
        signal(SIGPIPE, SIG_IGN)
        let code = api.pointee.global_init(Int(CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32))
        guard code == CURLE_OK else {
            return .failure(.other(code: Int(code.rawValue), message: "libcurl could not set itself up (curl_global_init)"))
        }
        return .success(self)
    }
}
