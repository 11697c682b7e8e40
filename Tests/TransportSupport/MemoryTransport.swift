import Foundation
import GitbayAPI
import GitbayFake

/// Requests to fake servers answered in memory, without a socket: the fake's state, faults,
/// limits and latency, and the transport's own rules (no redirect followed, the largest body
/// and the request timeout enforced). A request to a URL no server here answers fails to
/// connect, as a closed port does.
package final class MemoryTransport: HTTPTransport {
    private let servers: [String: FakeGitbayServer]

    /// Answers for every `server`, by its base URL and by every `alias` (another name of it).
    package init(_ servers: [FakeGitbayServer], aliases: [String: FakeGitbayServer] = [:]) {
        var byBase = Dictionary(servers.map { ($0.baseURL, $0) }, uniquingKeysWith: { first, _ in first })
        for (base, server) in aliases { byBase[base] = server }
        self.servers = byBase
    }

    package func send(_ request: HTTPRequest, limits: TransportConfiguration) async throws(TransportError) -> HTTPResponse {
        guard let (base, target) = Self.split(request.url), let server = servers[base] else {
            throw .connectFailed(.refused, detail: "nothing answers \(request.url) in memory")
        }
        var headers: [String: String] = ["host": String(base.dropFirst("http://".count))]
        for header in request.headers { headers[header.name.lowercased()] = header.value }
        let (exchange, delay) = server.exchange(method: request.method, target: target, headers: headers, body: request.body ?? [])
        try await Self.wait(delay, limit: limits.requestTimeout)
        switch exchange {
        case .response(let status, let fields, let body):
            if (300..<400).contains(status), status != 304 {
                throw .redirect(status: status, target: fields.first { $0.name.lowercased() == "location" }?.value)
            }
            guard body.count <= limits.maxResponseBytes else { throw .responseTooLarge(limit: limits.maxResponseBytes) }
            var kept: [String: String] = [:]
            for field in fields where limits.responseHeaders?.contains(field.name.lowercased()) ?? true {
                let name = field.name.lowercased()
                kept[name] = kept[name].map { "\($0), \(field.value)" } ?? field.value
            }
            return HTTPResponse(status: status, headers: kept, body: body)
        case .reset: throw .connectionLost(detail: "connection reset")
        case .drop: throw .connectionLost(detail: "closed without a reply")
        case .hang:
            try await Self.wait(limits.requestTimeout, limit: limits.requestTimeout)
            throw .timedOut(.request, limit: limits.requestTimeout)
        }
    }

    /// Waits `duration`, at most `limit` (then times out), ending at once when cancelled.
    private static func wait(_ duration: Duration, limit: Duration) async throws(TransportError) {
        guard duration > .zero else { return }
        do {
            try await Task.sleep(for: min(duration, limit))
        } catch {
            throw .cancelled
        }
        if duration > limit { throw .timedOut(.request, limit: limit) }
    }

    /// `http://host:port` and the path with its query.
    private static func split(_ url: String) -> (String, String)? {
        guard url.hasPrefix("http://"), let slash = url.dropFirst("http://".count).firstIndex(of: "/") else { return nil }
        return (String(url[..<slash]), String(url[slash...]))
    }
}
