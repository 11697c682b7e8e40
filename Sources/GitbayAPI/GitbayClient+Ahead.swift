import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The first exchange of `device list`, started before the command that reads it.
///
/// A run's account in flight is mostly a list waiting on its server, and a task waiting keeps
/// every frame of its chain of awaits: started ahead (`startListAhead`), the list is waited for
/// by no task. A `304` may then be taken as it is (`notModified(ahead:)`); anything else goes
/// to the command, which takes it as its first attempt, with the same classification,
/// retries, deadline and count as if it had sent it itself. A class, so that
/// the frames waiting for it hold a reference.
package final class ListAhead: Sendable {
    /// The tag the list was sent with.
    let etag: String?
    /// When it was sent: the client's deadline counts from here.
    let sentAt: ContinuousClock.Instant
    /// What was left of the deadline for it.
    let left: Duration?
    let result: Result<HTTPResponse, TransportError>

    init(etag: String?, sentAt: ContinuousClock.Instant, left: Duration?, result: Result<HTTPResponse, TransportError>) {
        self.etag = etag
        self.sentAt = sentAt
        self.left = left
        self.result = result
    }
}

extension GitbayClient {
    /// Starts `device list`'s first exchange with `etag` and returns at once; `completion`
    /// gets it, for `listDevices(ifNoneMatch:ahead:)` or `notModified(ahead:)`, on a thread of
    /// the transport's choosing. No task waits for it.
    package nonisolated func startListAhead(
        ifNoneMatch etag: String?, completion: @escaping @Sendable (ListAhead) -> Void
    ) -> TransportTransfer {
        let request = makeRequest(.read(argv: Self.listWords, ifNoneMatch: etag))
        let sentAt = ContinuousClock.now
        let left = configuration.deadline
        return transport.start(request, limits: limits(within: left)) { result in
            completion(ListAhead(etag: etag, sentAt: sentAt, left: left, result: result))
        }
    }

    /// Whether the list sent ahead answered `304 Not Modified` to its tag, which is all a
    /// `listDevices` would make of it (one attempt, `.notModified`). False for anything else,
    /// which only `listDevices` can read.
    package nonisolated func notModified(ahead: ListAhead) -> Bool {
        guard ahead.etag != nil, case .success(let response) = ahead.result else { return false }
        return ServerAnswer(status: response.status, headers: response.headers, body: response.body) == .notModified
    }

    /// Logs a `304` sent ahead and taken without `listDevices`, as `listDevices` logs its attempt.
    package nonisolated func logNotModified(ahead: ListAhead) {
        let command = Self.listWords.joined(separator: " ")
        logger.debug("gitbay.request", ["gitbay.command": command, "http.method": "GET", "request.attempt": "1"])
        if case .success(let response) = ahead.result {
            logger.debug("gitbay.response", ["gitbay.command": command, "http.status": String(response.status)])
        }
    }

    /// The limits of one attempt, with `left` of the deadline.
    nonisolated func limits(within left: Duration?) -> TransportConfiguration {
        var limits = configuration.transport
        limits.responseHeaders = Self.responseHeaders
        return left.map(limits.limited(to:)) ?? limits
    }

    /// The words of `device list`.
    static let listWords = ["notifications", "device", "list"]
}
