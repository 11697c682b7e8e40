internal import CCurl
import Dispatch
import Synchronization

/// One libcurl multi handle driven by one thread: every transfer submitted to it runs there,
/// alongside the others, and their connections go back to the multi handle's pool, where a
/// later transfer to the same scheme, host and port picks them up. Over HTTP/2 concurrent
/// transfers to one instance share a connection as streams.
///
/// `@unchecked Sendable` invariant: `multi` and `active` are used only on the loop's thread
/// (`curl_multi_wakeup` excepted, which libcurl allows from any thread); everything another
/// thread hands over goes through `inbox`, a `Mutex`.
final class CurlEventLoop: @unchecked Sendable {
    /// A transfer handed to the loop, and what to call once it has left the multi handle.
    struct Job: Sendable {
        let easy: CurlEasyHandle
        let transfer: CurlTransfer
        /// Called on the loop's thread with the transfer's result, after curl is done with the handle.
        let completion: @Sendable (CURLcode) -> Void
    }

    private struct Inbox {
        var added: [Job] = []
        /// Set when a transfer may have been cancelled since the last look.
        var sweepCancelled = false
        var stopping = false
    }

    /// The longest wait for curl while transfers are running.
    static let busyPollMilliseconds: Int32 = 50

    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    /// Transfers in the multi handle, by easy handle.
    private var active: [UnsafeMutableRawPointer: Job] = [:]

    /// Starts the loop's thread. `maxIdleConnections` bounds the connections kept open between
    /// transfers, all instances together; `connectionsPerInstance` those open to one host and
    /// port, transfers beyond it waiting inside libcurl for one to be free.
    init(maxIdleConnections: Int, connectionsPerInstance: Int) {
        guard let multi = curl_multi_init() else {
            preconditionFailure("curl_multi_init failed: libcurl is out of memory or not initialised")
        }
        self.multi = multi
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(maxIdleConnections, 1))
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(connectionsPerInstance, 1))
        // A serial queue of its own: the loop blocks in `curl_multi_poll`, never on a
        // cooperative thread.
        DispatchQueue(label: "gitbay-sync.curl-event-loop").async { [self] in run() }
    }

    /// Hands `job` to the loop; its completion runs once the transfer has ended.
    func submit(_ job: Job) {
        // One wake-up per batch: jobs added before the loop takes the inbox ride on the
        // wake-up the first of them sent.
        let first = inbox.withLock { inbox in
            inbox.added.append(job)
            return inbox.added.count == 1
        }
        if first { curl_multi_wakeup(multi) }
    }

    /// Tells the loop a transfer was cancelled, so that it aborts it without waiting for curl.
    func noticeCancellation() {
        inbox.withLock { $0.sweepCancelled = true }
        curl_multi_wakeup(multi)
    }

    /// Ends the loop: transfers still running end as cancelled, then the pool is closed.
    func stop() {
        inbox.withLock { $0.stopping = true }
        curl_multi_wakeup(multi)
    }

    private func run() {
        while true {
            let (added, sweep, stopping) = inbox.withLock { inbox in
                defer { inbox = Inbox(stopping: inbox.stopping) }
                return (inbox.added, inbox.sweepCancelled, inbox.stopping)
            }
            added.forEach(start)
            if sweep || stopping { abortCancelled(all: stopping) }
            if stopping { break }
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            var code = CURLE_OK
            while let handle = ccurl_multi_next_done(multi, &code) {
                end(handle, code)
            }
            // Waits for sockets, curl's next timeout, or a wake-up. While transfers run the
            // wait is short: libcurl (seen with 7.88 over HTTP/2) can hold a stream's answer,
            // already read from a shared connection, with neither a socket event nor a timer
            // due for it, until its next timeout (the connect timeout, 10 s) comes round; the
            // next `curl_multi_perform` finds it. Idle, the bound only keeps the loop from
            // sleeping forever.
            _ = curl_multi_poll(multi, nil, 0, active.isEmpty ? 60_000 : Self.busyPollMilliseconds, nil)
        }
        curl_multi_cleanup(multi)
    }

    private func start(_ job: Job) {
        guard !job.transfer.isCancelled else {
            job.completion(CURLE_ABORTED_BY_CALLBACK)
            return
        }
        guard curl_multi_add_handle(multi, job.easy.handle) == CURLM_OK else {
            job.completion(CURLE_FAILED_INIT)
            return
        }
        active[job.easy.handle] = job
    }

    private func end(_ handle: UnsafeMutableRawPointer, _ code: CURLcode) {
        _ = curl_multi_remove_handle(multi, handle)
        active.removeValue(forKey: handle)?.completion(code)
    }

    /// Takes cancelled transfers (every transfer, when `all`) out of the multi handle.
    private func abortCancelled(all: Bool) {
        for (handle, job) in active where all || job.transfer.isCancelled {
            job.transfer.cancel()
            end(handle, CURLE_ABORTED_BY_CALLBACK)
        }
    }
}
