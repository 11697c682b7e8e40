internal import CCurl
import GitbayAPI
import GitbaySupport

/// What a finished transfer produced: the answer, or the `TransportError` that says why not.
extension CurlEasyHandle {
    /// The answer of a finished transfer; a redirect is refused, never followed.
    func response(of transfer: CurlTransfer) -> Result<HTTPResponse, TransportError> {
        var status = 0
        _ = ccurl_getinfo_long(curl, handle, CURLINFO_RESPONSE_CODE, &status)
        if (300..<400).contains(status) && status != 304 {
            var location: UnsafeMutablePointer<CChar>?
            _ = ccurl_getinfo_string(curl, handle, CURLINFO_REDIRECT_URL, &location)
            return .failure(.redirect(status: status, target: location.map { HTTPDestination.withoutCredentialsOrQuery(String(cString: $0)) }))
        }
        return .success(HTTPResponse(status: status, headers: transfer.headers, body: transfer.body))
    }

    /// Maps a failed transfer to a `TransportError`.
    func error(for code: CURLcode, transfer: CurlTransfer, configuration: TransportConfiguration) -> TransportError {
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
            _ = ccurl_getinfo_off(curl, handle, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
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
            return .other(code: Int(code.rawValue), message: "curl: \(detail)")
        }
    }
}
