import Foundation
import GitbaySyncKit
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An app's stub for its server, as it registers one in a session configuration's
/// `protocolClasses`: it answers every request for `gitbay.test` itself, setting a cookie.
final class StubbedInstance: URLProtocol {
    /// The requests it answered: method, URL, and the header fields sent.
    static let answered = Mutex<[(method: String, url: String, headers: [String: String])]>([])

    override class func canInit(with request: URLRequest) -> Bool { request.url?.host == "gitbay.test" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let request = self.request
        Self.answered.withLock {
            $0.append((request.httpMethod ?? "", request.url?.absoluteString ?? "", request.allHTTPHeaderFields ?? [:]))
        }
        guard let url = request.url,
            let response = HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json", "Set-Cookie": "session=stub; Path=/"])
        else { preconditionFailure("a stub answer for \(request)") }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data(#"{"ok":true}"#.utf8))
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}

@Suite("URLSession transport over the app's configuration")
struct AppSessionConfigurationTests {
    @Test("the app's URLProtocol stub answers the transport's requests; the app's configuration is left unchanged")
    func appStubAnswers() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubbedInstance.self]
        let policy = configuration.requestCachePolicy
        let transport = URLSessionTransport(configuration: configuration)
        let request = HTTPRequest(
            method: "POST", url: "https://gitbay.test/api/v1/run", headers: [(name: "Authorization", value: "Bearer t")],
            body: Array(#"{"argv":["whoami"]}"#.utf8))
        let first = try await transport.send(request, limits: TransportConfiguration(requestTimeout: .seconds(5)))
        #expect(first.status == 200 && first.body == Array(#"{"ok":true}"#.utf8))
        #expect(first.headers["content-type"] == "application/json")
        _ = try await transport.send(request, limits: TransportConfiguration(requestTimeout: .seconds(5)))
        let answered = StubbedInstance.answered.withLock { $0 }
        #expect(answered.map(\.url) == ["https://gitbay.test/api/v1/run", "https://gitbay.test/api/v1/run"])
        #expect(answered.map(\.method) == ["POST", "POST"])
        #expect(answered.first?.headers["Authorization"] == "Bearer t")
        #expect(answered.allSatisfy { $0.headers["Cookie"] == nil }, "the stub's cookie is never sent back")
        #expect(configuration.requestCachePolicy == policy && configuration.protocolClasses?.count == 1)
    }
}
