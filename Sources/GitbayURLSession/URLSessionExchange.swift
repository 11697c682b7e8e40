import Foundation
import GitbayAPI
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request in flight over URLSession: the body its task delivered so far, why the transport
/// stopped the task early (if it did), and the continuation its sender waits on.
///
/// The session's delegate feeds it from the delegate queue, the sender starts it, and the
/// sender's cancellation or its request timer may stop it from any thread: everything mutable
/// is in one `Mutex`, and the task is only resumed or cancelled outside it.
final class URLSessionExchange: Sendable {
    typealias Outcome = Result<HTTPResponse, TransportError>

    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        var started = false
        var finished = false
        var body: [UInt8] = []
        /// Why the transport stopped the task itself; the first reason wins.
        var stopped: TransportError?
        /// Where URLSession would have gone, as the redirect it was refused asked.
        var redirectTarget: String?
    }

    let task: URLSessionDataTask
    let limits: TransportConfiguration
    private let state = Mutex(State())

    init(task: URLSessionDataTask, limits: TransportConfiguration) {
        self.task = task
        self.limits = limits
    }

    /// Starts the task, to end by resuming `continuation`; when the exchange was stopped before
    /// it started, the task is cancelled without ever running and `continuation` is resumed
    /// with the reason. Returns whether the task started.
    func begin(_ continuation: CheckedContinuation<Outcome, Never>) -> Bool {
        let stoppedEarly = state.withLock { state -> TransportError? in
            if let stopped = state.stopped {
                state.finished = true
                return stopped
            }
            state.continuation = continuation
            state.started = true
            return nil
        }
        if let stoppedEarly {
            // A task that is never resumed would stay with its session until it is cancelled.
            task.cancel()
            continuation.resume(returning: .failure(stoppedEarly))
            return false
        }
        task.resume()
        // A stop that came between the lock and `resume()` cancelled a task that was not yet
        // running; cancelling again once it runs is harmless, and sure to end it.
        if state.withLock({ $0.stopped != nil }) { task.cancel() }
        return true
    }

    /// Stops the exchange for `reason`, cancelling its task; a no-op once it has finished or
    /// was already stopped, so that the first reason is the one reported.
    func stop(_ reason: TransportError) {
        let cancelTask = state.withLock { state -> Bool in
            guard !state.finished, state.stopped == nil else { return false }
            state.stopped = reason
            return state.started
        }
        if cancelTask { task.cancel() }
    }

    /// Takes body bytes; past `maxResponseBytes` the exchange stops as too large instead.
    func receive(_ data: Data) {
        let limit = limits.maxResponseBytes
        let tooLarge = state.withLock { state -> Bool in
            guard state.stopped == nil else { return false }
            guard state.body.count + data.count <= limit else { return true }
            state.body.append(contentsOf: data)
            return false
        }
        if tooLarge { stop(.responseTooLarge(limit: limit)) }
    }

    /// Stops the exchange before its body arrives when the answer announces more than the
    /// limit. Returns whether the task should go on.
    func receive(_ response: URLResponse) -> Bool {
        if Self.announcesTooMuch(response, limit: limits.maxResponseBytes) {
            stop(.responseTooLarge(limit: limits.maxResponseBytes))
        }
        return state.withLock { $0.stopped == nil }
    }

    /// Remembers the target of a redirect the delegate refused to follow.
    func refuseRedirect(to target: URL?) {
        state.withLock { $0.redirectTarget = target?.absoluteString }
    }

    /// Ends the exchange with what the task's completion reported, resuming its sender.
    func finish(response: URLResponse?, error: (any Error)?) {
        let (continuation, stopped, redirectTarget, body) = state.withLock { state in
            let taken = (state.continuation, state.stopped, state.redirectTarget, state.body)
            state.finished = true
            state.continuation = nil
            state.body = []
            return taken
        }
        guard let continuation else { return }
        continuation.resume(
            returning: Self.outcome(
                stopped: stopped, redirectTarget: redirectTarget, body: body, response: response, error: error, limits: limits))
    }

    /// Whether a response's `Content-Length` alone is past `limit`. A compressed body's length
    /// says nothing of what it decompresses to, so it is left to the bytes as they arrive.
    static func announcesTooMuch(_ response: URLResponse, limit: Int) -> Bool {
        guard response.expectedContentLength > Int64(limit) else { return false }
        let encoding = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")
        return encoding == nil || encoding?.lowercased() == "identity"
    }
}
