internal import CCurl
import GitbayAPI
import GitbaySupport
import Synchronization

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

/// HTTP over libcurl for one client: its requests run on its connection pool's event loop and
/// reuse the pool's connections to the same instance.
///
/// A request borrows an easy handle from the pool and gives it back when it ends;
/// a request waits for its answer without holding a thread, and a cancelled task aborts its
/// transfer. Redirects are not followed, only `https` (or plain `http` to a loopback host) is
/// spoken, and proxy environment variables are honoured, except for a loopback host, which is
/// always reached directly.
///
/// Clients given one transport share its pool's connections; `shared` is the process's, whose
/// pool (and libcurl) starts with its first request, so a command that sends none never
/// opens libcurl.
package final class CurlTransport: HTTPTransport {
    private let givenPool: ConnectionPool?

    /// The process's transport, over `ConnectionPool.shared`.
    package static let shared = CurlTransport()

    /// A transport over `pool`; nil: the process's pool, started by the first request.
    package init(pool: ConnectionPool? = nil) {
        givenPool = pool
    }

    var pool: ConnectionPool { givenPool ?? .shared }

    /// Sends one request and returns the first answer (any status except a redirect).
    package func send(_ request: HTTPRequest, limits configuration: TransportConfiguration) async throws(TransportError) -> HTTPResponse {
        try HTTPDestination.check(request.url)
        let transfer = CurlTransfer(maxResponseBytes: configuration.maxResponseBytes, keeping: configuration.responseHeaders)
        let pool = pool
        let loop = try pool.loop
        let easy = try pool.borrowHandle()
        if let refusal = easy.prepare(request, transfer: transfer, configuration: configuration) {
            pool.giveBack(easy)
            throw refusal
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) in
                let job = CurlEventLoop.Job(easy: easy, transfer: transfer) { code in
                    let result = easy.finish(code, transfer: transfer, configuration: configuration)
                    pool.giveBack(easy)
                    continuation.resume(returning: result)
                }
                loop.submit(job)
            }
        } onCancel: {
            transfer.cancel()
            loop.noticeCancellation()
        }
        return try result.get()
    }
}

extension CurlTransport {
    /// Starts `request` on the event loop; `completion` runs on the loop's thread when it ends.
    package func start(
        _ request: HTTPRequest, limits configuration: TransportConfiguration,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) -> TransportTransfer {
        let transfer = CurlTransfer(maxResponseBytes: configuration.maxResponseBytes, keeping: configuration.responseHeaders)
        let pool = pool
        let loop: CurlEventLoop
        let easy: CurlEasyHandle
        do throws(TransportError) {
            try HTTPDestination.check(request.url)
            loop = try pool.loop
            easy = try pool.borrowHandle()
        } catch {
            completion(.failure(error))
            return TransportTransfer {}
        }
        if let refusal = easy.prepare(request, transfer: transfer, configuration: configuration) {
            pool.giveBack(easy)
            completion(.failure(refusal))
            return TransportTransfer {}
        }
        loop.submit(
            CurlEventLoop.Job(easy: easy, transfer: transfer) { code in
                let result = easy.finish(code, transfer: transfer, configuration: configuration)
                pool.giveBack(easy)
                completion(result)
            })
        return TransportTransfer {
            transfer.cancel()
            loop.noticeCancellation()
        }
    }
}
