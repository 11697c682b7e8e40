internal import CCurl
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One libcurl multi handle driven by one thread: every transfer submitted to it runs there,
/// alongside the others, and their connections go back to the multi handle's pool, where a
/// later transfer to the same scheme, host and port picks them up. Over HTTP/2 concurrent
/// transfers to one instance share a connection as streams.
///
/// The loop drives curl by its sockets (`curl_multi_socket_action`): it polls the sockets curl
/// names, and hands curl only the one that is ready, so a ready answer costs work on its own
/// connection's transfers, not a look at every transfer in flight.
///
/// `@unchecked Sendable` invariant: `multi`, `active`, `watched`, `pollList`, `deadline` and `lastNudge`
/// are used only on the loop's thread (curl calls its socket and timer callbacks there, from
/// inside the calls the loop makes); everything another thread hands over goes through
/// `inbox`, a `Mutex`, with a byte on the wake-up pipe written under it. Once the loop has
/// ended, the pipe is closed under it too: a late `noticeCancellation` (a transfer cancelled
/// after its pool is gone) writes nothing, never to a descriptor number reused since.
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
        /// The loop has ended and closed the wake-up pipe.
        var closed = false
    }

    /// How often, while transfers run, every watched socket is handed to curl with no event
    /// named. libcurl (seen with 7.88 over HTTP/2) can hold a stream's answer, already read
    /// from a shared connection, with neither a socket event nor a timer due for it until the
    /// transfer's connect timeout (10 s) comes round; a socket handed over this way makes curl
    /// look at every transfer on it and find the answer.
    static let nudgeMilliseconds: Int64 = 50

    private let multi: UnsafeMutableRawPointer
    /// libcurl's entry points.
    private let curl = CurlLibrary.api
    private let inbox = Mutex(Inbox())
    private let wake = WakePipe()
    /// Transfers in the multi handle, by easy handle.
    private var active: [UnsafeMutableRawPointer: Job] = [:]
    /// The sockets curl asked the loop to watch, and for which poll events.
    private var watched: [Int32: Int16] = [:]
    /// What `poll` is handed: the wake-up pipe, then `watched`; made again only after `watched`
    /// changed (a loop waits many times between changes, and each list made cost an allocation).
    private var pollList: [pollfd] = []
    private var pollListStale = true
    /// When curl wants to be called back at the latest, on the monotonic clock; nil: no timer.
    private var deadline: Int64?
    /// When the watched sockets were last handed to curl with no event named.
    private var lastNudge: Int64 = 0

    /// Starts the loop's thread. `maxIdleConnections` bounds the connections kept open between
    /// transfers, all instances together; `connectionsPerInstance` those open to one host and
    /// port, transfers beyond it waiting inside libcurl for one to be free.
    init(maxIdleConnections: Int, connectionsPerInstance: Int) {
        guard let multi = curl.pointee.multi_init() else {
            preconditionFailure("curl_multi_init failed: libcurl is out of memory or not initialised")
        }
        self.multi = multi
        _ = ccurl_multi_setopt_long(curl, multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = ccurl_multi_setopt_long(curl, multi, CURLMOPT_MAXCONNECTS, max(maxIdleConnections, 1))
        _ = ccurl_multi_setopt_long(curl, multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(connectionsPerInstance, 1))
        let driven = ccurl_multi_drive_sockets(
            curl, multi,
            { _, socket, what, context, _ in
                Unmanaged<CurlEventLoop>.fromOpaque(context!).takeUnretainedValue().watch(socket, what)
                return 0
            },
            { _, timeout, context in
                Unmanaged<CurlEventLoop>.fromOpaque(context!).takeUnretainedValue().setTimer(timeout)
                return 0
            },
            Unmanaged.passUnretained(self).toOpaque()
        )
        precondition(driven == CURLM_OK, "libcurl refused the socket and timer callbacks")
        // A serial queue of its own: the loop blocks in `poll`, never on a cooperative thread.
        DispatchQueue(label: "gitbay-sync.curl-event-loop").async { [self] in run() }
    }

    /// Hands `job` to the loop; its completion runs once the transfer has ended.
    func submit(_ job: Job) {
        // One wake-up per batch: jobs added before the loop takes the inbox ride on the
        // wake-up the first of them sent.
        inbox.withLock { inbox in
            inbox.added.append(job)
            if inbox.added.count == 1, !inbox.closed { wake.signal() }
        }
    }

    /// Tells the loop a transfer was cancelled, so that it aborts it without waiting for curl.
    func noticeCancellation() {
        inbox.withLock { inbox in
            inbox.sweepCancelled = true
            if !inbox.closed { wake.signal() }
        }
    }

    /// Ends the loop: transfers still running end as cancelled, then the pool is closed.
    func stop() {
        inbox.withLock { inbox in
            inbox.stopping = true
            if !inbox.closed { wake.signal() }
        }
    }

    private func run() {
        while true {
            let (added, sweep, stopping) = inbox.withLock { inbox in
                defer { inbox = Inbox(stopping: inbox.stopping, closed: inbox.closed) }
                return (inbox.added, inbox.sweepCancelled, inbox.stopping)
            }
            added.forEach(start)
            if sweep || stopping { abortCancelled(all: stopping) }
            if stopping { break }
            waitAndAct()
            var code = CURLE_OK
            while let handle = ccurl_multi_next_done(curl, multi, &code) {
                end(handle, code)
            }
        }
        _ = curl.pointee.multi_cleanup(multi)
        inbox.withLock { inbox in
            inbox.closed = true
            wake.close()
        }
    }

    /// Waits for a watched socket, curl's timer or a wake-up (at most until the next nudge
    /// while transfers run), then hands curl what happened.
    private func waitAndAct() {
        var wait: Int64 = 60_000
        if let deadline { wait = max(0, deadline - Self.milliseconds()) }
        if !active.isEmpty { wait = min(wait, Self.nudgeMilliseconds) }
        if pollListStale {
            pollList.removeAll(keepingCapacity: true)
            pollList.append(pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0))
            for (socket, events) in watched { pollList.append(pollfd(fd: socket, events: events, revents: 0)) }
            pollListStale = false
        }
        // poll sets every entry's revents: none is left from the last wait.
        var ready = poll(&pollList, nfds_t(pollList.count), Int32(wait))
        if ready > 0, pollList[0].revents != 0 {
            wake.drain()
            ready -= 1
        }
        // Up to the last of the `ready` entries poll counted, not every socket watched.
        var index = 1
        while ready > 0, index < pollList.count {
            if pollList[index].revents != 0 {
                ready -= 1
                act(on: pollList[index].fd, events: Self.curlEvents(pollList[index].revents))
            }
            index += 1
        }
        let now = Self.milliseconds()
        if let deadline, now >= deadline {
            self.deadline = nil
            act(on: CURL_SOCKET_TIMEOUT, events: 0)
        }
        if !active.isEmpty, now - lastNudge >= Self.nudgeMilliseconds {
            lastNudge = now
            for socket in Array(watched.keys) { act(on: socket, events: 0) }
        }
    }

    private func act(on socket: Int32, events: Int32) {
        var running: Int32 = 0
        _ = curl.pointee.multi_socket_action(multi, socket, events, &running)
    }

    /// curl's socket callback: watch `socket` for what it says, or no longer.
    private func watch(_ socket: Int32, _ what: Int32) {
        let events: Int16? =
            switch what {
            case CURL_POLL_IN: Int16(POLLIN)
            case CURL_POLL_OUT: Int16(POLLOUT)
            case CURL_POLL_INOUT: Int16(POLLIN) | Int16(POLLOUT)
            default: nil
            }
        guard watched[socket] != events else { return }
        watched[socket] = events
        pollListStale = true
    }

    /// curl's timer callback: call it back within `timeout` milliseconds (-1: no timer).
    private func setTimer(_ timeout: Int) {
        deadline = timeout < 0 ? nil : Self.milliseconds() + Int64(timeout)
    }

    private static func curlEvents(_ revents: Int16) -> Int32 {
        var events: Int32 = 0
        if revents & (Int16(POLLIN) | Int16(POLLHUP)) != 0 { events |= CURL_CSELECT_IN }
        if revents & Int16(POLLOUT) != 0 { events |= CURL_CSELECT_OUT }
        if revents & (Int16(POLLERR) | Int16(POLLNVAL)) != 0 { events |= CURL_CSELECT_ERR }
        return events
    }

    /// The monotonic clock in milliseconds.
    private static func milliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    private func start(_ job: Job) {
        guard !job.transfer.isCancelled else {
            job.completion(CURLE_ABORTED_BY_CALLBACK)
            return
        }
        guard curl.pointee.multi_add_handle(multi, job.easy.handle) == CURLM_OK else {
            job.completion(CURLE_FAILED_INIT)
            return
        }
        active[job.easy.handle] = job
    }

    private func end(_ handle: UnsafeMutableRawPointer, _ code: CURLcode) {
        _ = curl.pointee.multi_remove_handle(multi, handle)
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
