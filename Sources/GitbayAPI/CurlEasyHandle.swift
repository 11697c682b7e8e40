internal import CCurl
import FoundationEssentials
import GitbaySupport

/// Owns one curl easy handle and runs transfers on it; kept for the life of a transport so that
/// curl can reuse the connection, DNS and TLS session between requests.
///
/// `@unchecked Sendable` invariant: the handle and the error buffer are used by one transfer at a
/// time, only on the owning transport's serial queue, and freed in `deinit`.
final class CurlEasyHandle: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init() {
        guard let handle = curl_easy_init() else {
            preconditionFailure("curl_easy_init failed: libcurl is out of memory or not initialised")
        }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Runs one request to completion. Blocks: call it only on the transport's queue.
    func perform(
        _ request: HTTPRequest,
        transfer: CurlTransfer,
        configuration: TransportConfiguration
    ) -> Result<HTTPResponse, TransportError> {
        if transfer.isCancelled { return .failure(.cancelled) }
        for (name, value) in request.headers where !Self.isSafeHeader(name: name, value: value) {
            return .failure(.invalidRequest(reason: "a header field contains a line break or control character"))
        }

        // Reset drops the previous request's options but keeps the connection cache.
        curl_easy_reset(handle)
        errorBuffer[0] = 0

        let headerList = Self.headerList(for: request)
        defer { curl_slist_free_all(headerList) }
        var setup = OptionSetup(handle: handle)
        setTransferOptions(&setup, headerList: headerList, url: request.url, configuration: configuration)
        setCallbacks(&setup, context: Unmanaged.passUnretained(transfer).toOpaque())
        setMethodAndBody(&setup, request: request)
        if let failure = setup.failure {
            return .failure(.other(code: Int(failure.rawValue), message: "could not configure the request: \(Self.message(for: failure))"))
        }

        let code = withExtendedLifetime(transfer) { curl_easy_perform(handle) }
        guard code == CURLE_OK else {
            return .failure(error(for: code, transfer: transfer, configuration: configuration))
        }
        return response(of: transfer)
    }

    /// The request's header fields as curl takes them; the caller frees the list.
    private static func headerList(for request: HTTPRequest) -> UnsafeMutablePointer<curl_slist>? {
        var headerList: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers {
            headerList = curl_slist_append(headerList, "\(name): \(value)")
        }
        // An empty `Expect:` stops curl from waiting for `100 Continue` before a POST body.
        return curl_slist_append(headerList, "Expect:")
    }

    /// The URL, the headers, the limits and what curl may do on its own (no signals, no redirects).
    private func setTransferOptions(
        _ setup: inout OptionSetup,
        headerList: UnsafeMutablePointer<curl_slist>?,
        url: String,
        configuration: TransportConfiguration
    ) {
        setup.set(ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        setup.set(ccurl_setopt_string(handle, CURLOPT_URL, url))
        setup.set(ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        setup.set(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        setup.set(ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        setup.set(ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.roundedUpMilliseconds))
        setup.set(ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, configuration.requestTimeout.roundedUpMilliseconds))
        setup.set(ccurl_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maxResponseBytes)))
        setup.set(ccurl_setopt_string(handle, CURLOPT_USERAGENT, "gitbay-sync"))
        setup.set(ccurl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList))
        // HTTP/2 where the server offers it over TLS; a libcurl built without it keeps HTTP/1.1.
        _ = ccurl_setopt_long(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
    }

    /// The body, header and progress callbacks, each reaching the transfer through `context`.
    private func setCallbacks(_ setup: inout OptionSetup, context: UnsafeMutableRawPointer) {
        setup.set(ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
        setup.set(
            ccurl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                guard let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
            })
        setup.set(ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
        setup.set(
            ccurl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                guard let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
                return length
            })
        // The progress callback is how a cancelled task aborts a transfer that is waiting.
        setup.set(ccurl_setopt_long(handle, CURLOPT_NOPROGRESS, 0))
        setup.set(ccurl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context))
        setup.set(
            ccurl_setopt_progress_callback(handle, CURLOPT_XFERINFOFUNCTION) { context, _, _, _, _ in
                guard let context else { return 0 }
                return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
            })
    }

    private func setMethodAndBody(_ setup: inout OptionSetup, request: HTTPRequest) {
        switch request.method {
        case "GET":
            setup.set(ccurl_setopt_long(handle, CURLOPT_HTTPGET, 1))
        case "POST":
            setup.set(ccurl_setopt_long(handle, CURLOPT_POST, 1))
        default:
            setup.set(ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method))
        }
        if let body = request.body {
            // The size goes first so that COPYPOSTFIELDS copies exactly these bytes.
            setup.set(ccurl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            body.withUnsafeBytes { bytes in
                let start = bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)
                setup.set(ccurl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: start)))
            }
        }
    }

    /// The answer of a finished transfer; a redirect is refused, never followed.
    private func response(of transfer: CurlTransfer) -> Result<HTTPResponse, TransportError> {
        var status = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        if (300..<400).contains(status) && status != 304 {
            var location: UnsafeMutablePointer<CChar>?
            _ = ccurl_getinfo_string(handle, CURLINFO_REDIRECT_URL, &location)
            return .failure(.redirect(status: status, target: location.map { Self.withoutCredentialsOrQuery(String(cString: $0)) }))
        }
        return .success(HTTPResponse(status: status, headers: transfer.headers, body: transfer.body))
    }

    /// Maps a failed transfer to a `TransportError`.
    private func error(for code: CURLcode, transfer: CurlTransfer, configuration: TransportConfiguration) -> TransportError {
        let detail = errorBuffer[0] != 0 ? String(cString: errorBuffer) : Self.message(for: code)
        switch code {
        case CURLE_ABORTED_BY_CALLBACK where transfer.isCancelled:
            return .cancelled
        case CURLE_WRITE_ERROR where transfer.exceededLimit, CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge(limit: configuration.maxResponseBytes)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectFailed(.hostNotFound, detail: detail)
        case CURLE_COULDNT_CONNECT:
            return .connectFailed(.refused, detail: detail)
        case CURLE_OPERATION_TIMEDOUT:
            // Until the connection is up, the pre-transfer time stays 0 (a reused connection
            // sets it at once), which tells a connect timeout from a slow answer.
            var pretransfer: curl_off_t = 0
            _ = ccurl_getinfo_off(handle, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
            if pretransfer == 0 {
                return .timedOut(.connect, limit: min(configuration.connectTimeout, configuration.requestTimeout))
            }
            return .timedOut(.request, limit: configuration.requestTimeout)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_WEIRD_SERVER_REPLY:
            return .connectionLost(detail: detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_USE_SSL_FAILED:
            return .tlsFailed(detail: detail)
        default:
            return .other(code: Int(code.rawValue), message: detail)
        }
    }

    private static func message(for code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }

    /// A header is sent only when neither its name nor its value could break the request apart.
    private static func isSafeHeader(name: String, value: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }
            && value.utf8.allSatisfy { $0 == UInt8(ascii: "\t") || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// The URL without user info, query or fragment: enough to name a redirect target without
    /// repeating anything secret it might carry.
    static func withoutCredentialsOrQuery(_ url: String) -> String {
        var text = Substring(url)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        if let schemeEnd = text.firstRange(of: "://") {
            let rest = text[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                text = text[..<schemeEnd.upperBound] + rest[rest.index(after: at)...]
            }
        }
        return String(text)
    }
}

/// Collects the first failing `curl_easy_setopt` result.
private struct OptionSetup {
    let handle: UnsafeMutableRawPointer
    private(set) var failure: CURLcode?

    init(handle: UnsafeMutableRawPointer) {
        self.handle = handle
    }

    mutating func set(_ code: CURLcode) {
        if code != CURLE_OK && failure == nil { failure = code }
    }
}
