internal import CCurl
import GitbayAPI

/// The options a request sets beside its URL and callbacks: proxy, certificate authorities,
/// method and body. Each sets libcurl's default back where the request needs none, since the
/// handle is never reset.
extension CurlEasyHandle {
    /// The proxy `choice` names: none, or the environment's.
    func setProxy(_ setup: inout OptionSetup, _ choice: StandingOptions.Proxy) {
        switch choice {
        case .noneNamed:
            // No proxy variable is set: saying so spares curl reading them for every request.
            setup.set(ccurl_setopt_string(curl, handle, CURLOPT_PROXY, ""))
            setup.set(ccurl_setopt_pointer(curl, handle, CURLOPT_NOPROXY, nil))
        case .bypassed:
            // An empty proxy turns every variable (no_proxy included) off.
            setup.set(ccurl_setopt_string(curl, handle, CURLOPT_PROXY, ""))
            setup.set(ccurl_setopt_string(curl, handle, CURLOPT_NOPROXY, "*"))
        case .environment:
            // libcurl's defaults: the variables decide.
            setup.set(ccurl_setopt_pointer(curl, handle, CURLOPT_PROXY, nil))
            setup.set(ccurl_setopt_pointer(curl, handle, CURLOPT_NOPROXY, nil))
        }
    }

    /// Where the certificate authorities come from: `Authorities.choose` decides.
    func setAuthorities(_ setup: inout OptionSetup, file: String?, folder: String?) {
        let defaults = CurlLibrary.opened.authorityDefaults
        let chosen = Authorities.choose(file: file, folder: folder, defaults: defaults)
        setPath(&setup, CURLOPT_CAINFO, chosen.file, default: defaults.file)
        setPath(&setup, CURLOPT_CAPATH, chosen.folder, default: defaults.folder)
    }

    /// A path option: libcurl's default is given again as the path it reported.
    func setPath(_ setup: inout OptionSetup, _ option: CURLoption, _ source: Authorities.Source, default path: String?) {
        switch source {
        case .libcurlDefault:
            if let path {
                setup.set(ccurl_setopt_string(curl, handle, option, path))
            } else {
                setup.set(ccurl_setopt_pointer(curl, handle, option, nil))
            }
        case .none: setup.set(ccurl_setopt_pointer(curl, handle, option, nil))
        case .path(let path): setup.set(ccurl_setopt_string(curl, handle, option, path))
        }
    }

    /// A request without a body goes as a GET (under its own method's name); one with a body,
    /// and every POST, as a POST of exactly its bytes (none for a POST without one).
    func setMethodAndBody(_ setup: inout OptionSetup, request: HTTPRequest) {
        if request.method == "GET" || request.method == "POST" {
            setup.set(ccurl_setopt_pointer(curl, handle, CURLOPT_CUSTOMREQUEST, nil))
        } else {
            setup.set(ccurl_setopt_string(curl, handle, CURLOPT_CUSTOMREQUEST, request.method))
        }
        guard let body = request.body ?? (request.method == "POST" ? [] : nil) else {
            // Drops the last request's body; the GET then overrides the POST this implies.
            setup.set(ccurl_setopt_pointer(curl, handle, CURLOPT_POSTFIELDS, nil))
            setup.set(ccurl_setopt_long(curl, handle, CURLOPT_HTTPGET, 1))
            return
        }
        // The size goes first so that COPYPOSTFIELDS copies exactly these bytes.
        setup.set(ccurl_setopt_off(curl, handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
        body.withUnsafeBytes { bytes in
            let start = bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)
            setup.set(ccurl_setopt_pointer(curl, handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: start)))
        }
        setup.set(ccurl_setopt_long(curl, handle, CURLOPT_POST, 1))
    }
}

/// What the options a handle keeps from one request to the next are set from: the parts of
/// the transport's configuration they use, and of the URL whether it is `https` and which proxy it takes.
struct StandingOptions: Equatable {
    /// Which proxy a request takes.
    enum Proxy: Equatable {
        /// The environment names none: saying so spares curl reading the variables.
        case noneNamed
        /// None, whatever the variables say: a proxy would be handed a loopback instance's
        /// token in clear (plain http), and asked to fetch its own 127.0.0.1.
        case bypassed
        /// The environment's, as its variables decide.
        case environment
    }

    let connectTimeout: Duration
    let requestTimeout: Duration
    let maxResponseBytes: Int
    let certificateFile: String?
    let certificateFolder: String?
    let https: Bool
    let proxy: Proxy

    init(url: String, configuration: TransportConfiguration) {
        connectTimeout = configuration.connectTimeout
        requestTimeout = configuration.requestTimeout
        maxResponseBytes = configuration.maxResponseBytes
        certificateFile = configuration.certificateFile
        certificateFolder = configuration.certificateFolder
        https = CurlEasyHandle.isHTTPS(url)
        proxy =
            if !CurlEasyHandle.proxyInEnvironment { .noneNamed } else if HTTPDestination.isLoopback(url) { .bypassed } else { .environment }
    }
}

/// Collects the first failing `curl_easy_setopt` result.
struct OptionSetup {
    let handle: UnsafeMutableRawPointer
    private(set) var failure: CURLcode?

    init(handle: UnsafeMutableRawPointer) {
        self.handle = handle
    }

    mutating func set(_ code: CURLcode) {
        if code != CURLE_OK && failure == nil { failure = code }
    }
}
