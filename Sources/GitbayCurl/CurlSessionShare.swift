internal import CCurl

/// TLS sessions shared by the easy handles of one connection pool: when a client opens another
/// connection to an instance, it resumes a session an earlier connection made instead of a
/// full handshake.
///
/// `@unchecked Sendable` invariant: libcurl takes the share's own locks (set up by the shim) on
/// every use; this object only frees it, in `deinit`, which comes once no easy handle holds it,
/// since each easy handle attached to it keeps a reference.
final class CurlSessionShare: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    /// libcurl's entry points.
    private let curl = CurlLibrary.api
    private let locks: UnsafeMutablePointer<ccurl_share_locks>

    init() {
        var locks: UnsafeMutablePointer<ccurl_share_locks>?
        guard let handle = ccurl_share_new(curl, &locks), let locks else {
            preconditionFailure("curl_share_init failed: libcurl is out of memory or not initialised")
        }
        self.handle = handle
        self.locks = locks
    }

    deinit {
        ccurl_share_free(curl, handle, locks)
    }
}
