internal import CCurl
import GitbayAPI

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
    /// Where libcurl finds certificate authorities unless told otherwise.
    let authorityDefaults: Authorities.Defaults

    private init(api: UnsafePointer<ccurl_api>, authorityDefaults: Authorities.Defaults) {
        self.api = api
        self.authorityDefaults = authorityDefaults
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
        return open(named.isEmpty ? systemPath : named).flatMap(setUp)
    }()

    /// The library `loaded` opened. Only for code that runs once `loaded` succeeded: a
    /// `ConnectionPool` makes its event loop and handles only then.
    static var opened: CurlLibrary {
        guard case .success(let library) = loaded else {
            preconditionFailure("libcurl was used although it could not be opened")
        }
        return library
    }

    /// The entry points of the library `loaded` opened (see `opened`).
    static var api: UnsafePointer<ccurl_api> { opened.api }

    /// Opens the library file at `path` (a name alone is searched for as the loader does) and
    /// finds its entry points.
    private static func open(_ path: String) -> Result<UnsafePointer<ccurl_api>, TransportError> {
        let api = UnsafeMutablePointer<ccurl_api>.allocate(capacity: 1)
        api.initialize(to: ccurl_api())
        if let reason = ccurl_open(path, api) {
            let detail = String(cString: reason)
            api.deallocate()
            return .failure(.libcurlUnavailable(path: path, detail: detail))
        }
        return .success(UnsafePointer(api))
    }

    /// Process-wide setup, once, before the first handle: curl's global state, SIGPIPE
    /// ignored so that a peer closing a socket cannot kill the process, and where libcurl
    /// looks for certificate authorities by default.
    private static func setUp(_ api: UnsafePointer<ccurl_api>) -> Result<CurlLibrary, TransportError> {
        signal(SIGPIPE, SIG_IGN)
        let code = api.pointee.global_init(Int(CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32))
        guard code == CURLE_OK else {
            return .failure(.other(code: Int(code.rawValue), message: "libcurl could not set itself up (curl_global_init)"))
        }
        return .success(CurlLibrary(api: api, authorityDefaults: defaultAuthorities(api)))
    }

    /// The file and folder of certificate authorities libcurl uses unless told otherwise (its
    /// build's `--with-ca-bundle` and `--with-ca-path`), as a fresh handle reports them; the
    /// folder only when it holds authorities under hashed names.
    private static func defaultAuthorities(_ api: UnsafePointer<ccurl_api>) -> Authorities.Defaults {
        guard let handle = api.pointee.easy_init() else { return .init() }
        defer { api.pointee.easy_cleanup(handle) }
        func path(_ info: CURLINFO) -> String? {
            var path: UnsafeMutablePointer<CChar>?
            guard ccurl_getinfo_string(api, handle, info, &path) == CURLE_OK, let path else { return nil }
            return String(cString: path)
        }
        let folder = path(CURLINFO_CAPATH)
        return Authorities.Defaults(
            file: path(CURLINFO_CAINFO), hashedFolder: folder.flatMap { holdsHashedAuthorities($0) ? $0 : nil }, folder: folder)
    }

    /// Whether `folder` holds a certificate authority under OpenSSL's hashed names
    /// (`5ad8a5d6.0`): the names a TLS handshake looks an issuer up by.
    static func holdsHashedAuthorities(_ folder: String) -> Bool {
        guard let directory = opendir(folder) else { return false }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if isHashedName(name) { return true }
        }
        return false
    }

    /// Eight lower-case hex digits, a dot and a number of up to three digits.
    static func isHashedName(_ name: [UInt8]) -> Bool {
        guard name.count >= 10, name[8] == UInt8(ascii: "."), name.count - 9 <= 3 else { return false }
        let hex = name[..<8].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        return hex && name[9...].allSatisfy { (0x30...0x39).contains($0) }
    }
}
