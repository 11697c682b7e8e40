internal import CCurl
import GitbayAPI
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns one curl easy handle and the options of the request it carries; kept for the life of
/// a transport so that a request costs no new handle.
///
/// The handle is never reset: every option a request uses is set for it, the ones it does not
/// use back to libcurl's defaults included; those every request sets alike (`StandingOptions`)
/// only when what they come from changed, since curl keeps them from one transfer to the next. A reset would put the receive buffer's recorded
/// size back to 16 KB, while libcurl keeps a buffer of the size it had across a transfer that
/// ends on an HTTP/2 connection other transfers still use; and a new handle per request costs
/// more memory in churn than the smaller buffer saves.
///
/// `@unchecked Sendable` invariant: the handle, the error buffer and the header list belong to
/// one transfer at a time. The sending task prepares it, the event loop's thread drives it and
/// finishes it, and only then does the transport hand it to the next transfer; it is freed in
/// `deinit`, when no transfer holds it.
final class CurlEasyHandle: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    /// libcurl's entry points.
    let curl = CurlLibrary.api
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// The pool's TLS sessions; held so that they outlive the handle.
    private let sessions: CurlSessionShare
    /// The header fields of the transfer in progress; curl reads them until it ends.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// What the options that stay alike from one request to the next were last set from; nil
    /// until they are set, and after a request failed to set any option.
    private var standing: StandingOptions?

    init(sessions: CurlSessionShare) {
        guard let handle = curl.pointee.easy_init() else {
            preconditionFailure("curl_easy_init failed: libcurl is out of memory or not initialised")
        }
        self.handle = handle
        self.sessions = sessions
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        // Before the handle's first transfer, while it has no buffer: later libcurl refuses it.
        // A refusal keeps libcurl's 16 KB, which is only more memory.
        _ = ccurl_setopt_long(curl, handle, CURLOPT_BUFFERSIZE, Self.receiveBufferSize)
    }

    /// The receive buffer's size: libcurl's smallest. An answer to the steady path (a `304`, a
    /// short list) fits in it, a longer one is read in more pieces, and each transfer in
    /// flight keeps 1 KB rather than 16 KB, most of which an answer never touched.
    static let receiveBufferSize = 1024

    deinit {
        curl.pointee.slist_free_all(headerList)
        curl.pointee.easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Sets the handle up for `request`; nil when it is ready to go to the event loop, or why
    /// the request cannot be sent.
    func prepare(_ request: HTTPRequest, transfer: CurlTransfer, configuration: TransportConfiguration) -> TransportError? {
        if transfer.isCancelled { return .cancelled }
        do { try request.checkHeaders() } catch { return error }

        // No reset (see the type's comment).
        errorBuffer[0] = 0
        curl.pointee.slist_free_all(headerList)
        headerList = headerList(for: request)

        var setup = OptionSetup(handle: handle)
        let wanted = StandingOptions(url: request.url, configuration: configuration)
        if wanted != standing { setStandingOptions(&setup, wanted) }
        setup.set(ccurl_setopt_string(curl, handle, CURLOPT_URL, request.url))
        setup.set(ccurl_setopt_pointer(curl, handle, CURLOPT_HTTPHEADER, headerList))
        setContext(&setup, Unmanaged.passUnretained(transfer).toOpaque())
        setMethodAndBody(&setup, request: request)
        standing = setup.failure == nil ? wanted : nil
        if let failure = setup.failure {
            return .other(code: Int(failure.rawValue), message: "curl could not configure the request: \(Self.message(for: failure))")
        }
        return nil
    }

    /// The outcome of the transfer that ended with `code`. Call it once the handle has left the
    /// event loop; the transfer must be the one the handle was prepared with.
    func finish(_ code: CURLcode, transfer: CurlTransfer, configuration: TransportConfiguration) -> Result<HTTPResponse, TransportError> {
        curl.pointee.slist_free_all(headerList)
        headerList = nil
        guard code == CURLE_OK else {
            return .failure(error(for: code, transfer: transfer, configuration: configuration))
        }
        return response(of: transfer)
    }

    /// The request's header fields as curl takes them; the caller frees the list.
    private func headerList(for request: HTTPRequest) -> UnsafeMutablePointer<curl_slist>? {
        var headerList: UnsafeMutablePointer<curl_slist>?
        var line: [UInt8] = []
        for (name, value) in request.headers {
            // `name: value` and the terminating NUL, built as bytes: curl copies the line.
            line.removeAll(keepingCapacity: true)
            line.append(utf8Of: name)
            line.append(utf8Of: ": ")
            line.append(utf8Of: value)
            line.append(0)
            headerList = line.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { curl.pointee.slist_append(headerList, $0.baseAddress) }
            }
        }
        // An empty `Expect:` stops curl from waiting for `100 Continue` before a POST body.
        return curl.pointee.slist_append(headerList, "Expect:")
    }

    /// The options every request on this handle sets alike: the limits, the authorities, the
    /// proxy, the callbacks, and what curl may do on its own (no signals, no redirects). Set
    /// again only when what they come from changes; curl keeps them from one transfer to the next.
    private func setStandingOptions(_ setup: inout OptionSetup, _ options: StandingOptions) {
        setup.set(ccurl_setopt_pointer(curl, handle, CURLOPT_ERRORBUFFER, errorBuffer))
        setup.set(ccurl_setopt_pointer(curl, handle, CURLOPT_SHARE, sessions.handle))
        setup.set(ccurl_setopt_string(curl, handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        setup.set(ccurl_setopt_long(curl, handle, CURLOPT_NOSIGNAL, 1))
        setup.set(ccurl_setopt_long(curl, handle, CURLOPT_FOLLOWLOCATION, 0))
        setup.set(ccurl_setopt_long(curl, handle, CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeout.roundedUpMilliseconds))
        setup.set(ccurl_setopt_long(curl, handle, CURLOPT_TIMEOUT_MS, options.requestTimeout.roundedUpMilliseconds))
        setup.set(ccurl_setopt_off(curl, handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(options.maxResponseBytes)))
        setup.set(ccurl_setopt_string(curl, handle, CURLOPT_USERAGENT, "gitbay-sync"))
        setAuthorities(&setup, file: options.certificateFile, folder: options.certificateFolder)
        setProxy(&setup, options.proxy)
        setCallbacks(&setup)
        // HTTP/2 where the server offers it over TLS; a libcurl built without it keeps HTTP/1.1.
        _ = ccurl_setopt_long(curl, handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        // Over TLS, a transfer waits for a connection being set up to the same instance rather
        // than open another, in case that one turns out to multiplex HTTP/2 streams.
        _ = ccurl_setopt_long(curl, handle, CURLOPT_PIPEWAIT, options.https ? 1 : 0)
    }

    /// The transfer the callbacks reach, through `context`.
    private func setContext(_ setup: inout OptionSetup, _ context: UnsafeMutableRawPointer) {
        setup.set(ccurl_setopt_pointer(curl, handle, CURLOPT_WRITEDATA, context))
        setup.set(ccurl_setopt_pointer(curl, handle, CURLOPT_HEADERDATA, context))
        setup.set(ccurl_setopt_pointer(curl, handle, CURLOPT_XFERINFODATA, context))
    }

    /// The body, header and progress callbacks, each reaching its transfer through the context
    /// `setContext` gives.
    private func setCallbacks(_ setup: inout OptionSetup) {
        setup.set(
            ccurl_setopt_data_callback(curl, handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                guard let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
            })
        setup.set(
            ccurl_setopt_data_callback(curl, handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                guard let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                let length = size * count
                transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
                return length
            })
        // The progress callback is how a cancelled task aborts a transfer that is waiting.
        setup.set(ccurl_setopt_long(curl, handle, CURLOPT_NOPROGRESS, 0))
        setup.set(
            ccurl_setopt_progress_callback(curl, handle, CURLOPT_XFERINFOFUNCTION) { context, _, _, _, _ in
                guard let context else { return 0 }
                return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
            })
    }

    /// Whether any variable curl takes a proxy from is set (curl reads `http_proxy` in lower
    /// case only). Read once: the process never changes its environment.
    static let proxyInEnvironment: Bool = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"].contains {
        (name: String) in getenv(name) != nil
    }

    /// Whether the URL's scheme is `https`, in any case.
    static func isHTTPS(_ url: String) -> Bool {
        // Byte by byte, in any case: no array made for every request.
        var bytes = url.utf8.makeIterator()
        for expected in "https:".utf8 {
            guard let byte = bytes.next(), ((0x41...0x5A).contains(byte) ? byte + 0x20 : byte) == expected else { return false }
        }
        return true
    }

    static func message(for code: CURLcode) -> String {
        CurlLibrary.api.pointee.easy_strerror(code).map { String(cString: $0) } ?? "curl error \(code.rawValue)"
    }
}
