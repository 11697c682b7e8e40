import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a transport's sessions: hands each task's events to the exchange it
/// belongs to, and refuses every redirect and every cached answer.
///
/// URLSession calls it on its delegate queue; the exchanges in flight are in a `Mutex`, keyed
/// by their task, from `register` until the task completes (or `forget`).
final class SessionEvents: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Mutex<[ObjectIdentifier: URLSessionExchange]>([:])

    /// Routes the events of `exchange`'s task to it; call before the task starts.
    func register(_ exchange: URLSessionExchange) {
        exchanges.withLock { $0[ObjectIdentifier(exchange.task)] = exchange }
    }

    /// Stops routing events to an exchange that never started its task.
    func forget(_ exchange: URLSessionExchange) {
        _ = exchanges.withLock { $0.removeValue(forKey: ObjectIdentifier(exchange.task)) }
    }

    private func exchange(for task: URLSessionTask) -> URLSessionExchange? {
        exchanges.withLock { $0[ObjectIdentifier(task)] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let proceed = exchange(for: dataTask)?.receive(response) ?? false
        completionHandler(proceed ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.receive(data)
    }

    /// A redirect is never followed: the 3xx becomes the task's answer.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        exchange(for: task)?.refuseRedirect(to: request.url)
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
        exchange?.finish(response: task.response, error: error)
    }
}
