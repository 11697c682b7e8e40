/// Limits for one HTTP transport: how long to wait and how much to accept.
public struct TransportConfiguration: Sendable, Equatable {
    /// How long connecting (TCP and TLS) may take.
    public var connectTimeout: Duration
    /// How long a whole request may take, connecting included.
    public var requestTimeout: Duration
    /// The largest response body accepted; a larger one aborts the transfer.
    public var maxResponseBytes: Int
    /// A file of certificate authorities to trust for `https` instances in place of libcurl's
    /// default file, such as a self-hosted instance's private authority; nil keeps the
    /// system's (`Authorities.choose`).
    public var certificateFile: String?
    /// A folder of certificate authorities (hashed names, as OpenSSL reads them) in place of
    /// libcurl's default folder; nil keeps the system's.
    public var certificateFolder: String?
    /// The response header fields kept in `HTTPResponse.headers`, by lower-case name; nil
    /// keeps every field. Fields not kept cost no copy.
    public var responseHeaders: Set<String>?

    public init(
        connectTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(30),
        maxResponseBytes: Int = 1 << 20,
        certificateFile: String? = nil,
        certificateFolder: String? = nil
    ) {
        precondition(connectTimeout > .zero && requestTimeout > .zero, "timeouts must be positive")
        precondition(maxResponseBytes > 0, "maxResponseBytes must be positive")
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxResponseBytes = maxResponseBytes
        self.certificateFile = certificateFile
        self.certificateFolder = certificateFolder
    }

    /// The same limits with neither timeout longer than `limit`.
    public func limited(to limit: Duration) -> TransportConfiguration {
        var limited = self
        limited.connectTimeout = min(connectTimeout, limit)
        limited.requestTimeout = min(requestTimeout, limit)
        return limited
    }

    /// The certificate authorities the environment names, as OpenSSL's own tools read them:
    /// `SSL_CERT_FILE` and `SSL_CERT_DIR` (an empty value counts as unset).
    public mutating func trustCertificates(from environment: [String: String]) {
        if let file = environment["SSL_CERT_FILE"], !file.isEmpty { certificateFile = file }
        if let folder = environment["SSL_CERT_DIR"], !folder.isEmpty { certificateFolder = folder }
    }
}
