import Foundation
import GitbayAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a finished task produced: the answer, or the `TransportError` that says why not, in
/// the cases libcurl's transport reports.
extension URLSessionExchange {
    /// The outcome of a task that completed with `response` and `error`, after the transport
    /// stopped it for `stopped` (which comes first) or not.
    static func outcome(
        stopped: TransportError?, redirectTarget: String?, body: [UInt8], response: URLResponse?, error: (any Error)?,
        limits: TransportConfiguration
    ) -> Outcome {
        if let stopped { return .failure(stopped) }
        if let error { return .failure(TransportError(sessionError: error, limits: limits)) }
        guard let response = response as? HTTPURLResponse else {
            return .failure(.other(code: URLError.Code.badServerResponse.rawValue, message: "URLSession: the answer is not HTTP"))
        }
        let status = response.statusCode
        if (300..<400).contains(status) && status != 304 {
            let target = redirectTarget ?? location(of: response)
            return .failure(.redirect(status: status, target: target.map(HTTPDestination.withoutCredentialsOrQuery)))
        }
        return .success(HTTPResponse(status: status, headers: headers(of: response, keeping: limits.responseHeaders), body: body))
    }

    /// A redirect's `Location`, made absolute against the URL that answered it.
    static func location(of response: HTTPURLResponse) -> String? {
        guard let location = response.value(forHTTPHeaderField: "Location") else { return nil }
        return URL(string: location, relativeTo: response.url)?.absoluteString ?? location
    }

    /// The answer's header fields by lower-cased name, only those in `names` when it is given.
    /// URLSession has already joined a repeated field's values with `, `.
    static func headers(of response: HTTPURLResponse, keeping names: Set<String>?) -> [String: String] {
        var headers: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            guard let name = (key as? String)?.lowercased(), names?.contains(name) ?? true else { continue }
            headers[name] = value as? String ?? String(describing: value)
        }
        return headers
    }
}

extension TransportError {
    /// The case a URLSession failure stands for, as `CurlTransport` reports the curl failure
    /// behind it. A timeout is the request's: URLSession does not say whether it was connecting.
    init(sessionError error: any Error, limits: TransportConfiguration) {
        guard let error = error as? URLError else {
            let error = error as NSError
            self = .other(code: error.code, message: "URLSession (\(error.domain)): \(error.localizedDescription)")
            return
        }
        let detail = "URLSession: \(error.localizedDescription)"
        switch error.code {
        case .cannotFindHost, .dnsLookupFailed:
            self = .connectFailed(.hostNotFound, detail: detail)
        case .cannotConnectToHost, .notConnectedToInternet:
            self = .connectFailed(.refused, detail: detail)
        case .timedOut:
            self = .timedOut(.request, limit: limits.requestTimeout)
        case .cancelled:
            self = .cancelled
        case .networkConnectionLost, .badServerResponse, .cannotParseResponse:
            self = .connectionLost(detail: detail)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired:
            self = .tlsFailed(detail: detail)
        default:
            self = .other(code: error.errorCode, message: detail)
        }
    }
}
