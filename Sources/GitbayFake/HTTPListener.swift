import Dispatch
import Foundation

#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// An HTTP/1.1 server on 127.0.0.1: an accept thread and one thread per connection, with
/// keep-alive. `stop()` ends every thread and closes every descriptor before it returns.
final class HTTPListener: Sendable {
    /// Turns a request into a reply; called on connection threads, concurrently.
    typealias Handler = @Sendable (HTTPRequest) -> HTTPReply

    /// Connections alive right now; `stop()` shuts them down to wake threads blocked in `send`.
    private struct Connections: Sendable {
        var stopping = false
        var open: Set<Int32> = []
    }

    let port: UInt16
    private let listener: Int32
    /// Written once by `stop()`, never drained: its read end stays readable, so every poll
    /// that includes it wakes up and sees the server is stopping.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let connections = Guarded(Connections())
    private let threads = DispatchGroup()
    private let handler: Handler
    private let admits: @Sendable () -> Bool
    private let accepted: @Sendable () -> Void
    private let answering: @Sendable (Bool) -> Void
    private let answered: @Sendable (HTTPReply) -> Void

    /// Binds and starts accepting. `accepted` is called for every TCP connection accepted,
    /// admitted or not; `admits` false closes each new connection (and each new request on an
    /// open one) without a reply. `answering` is called with true when an admitted request has
    /// been read and with false once its reply is ready (after the latency), before it is sent:
    /// a client that has its answer is no longer counted. `answered` is called with the reply
    /// at that same moment.
    init(
        port: UInt16,
        accepted: @escaping @Sendable () -> Void = {},
        answering: @escaping @Sendable (Bool) -> Void = { _ in },
        answered: @escaping @Sendable (HTTPReply) -> Void = { _ in },
        admits: @escaping @Sendable () -> Bool,
        handler: @escaping Handler
    ) throws(FakeServerError) {
        let (socket, boundPort) = try PosixSocket.listen(port: port)
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            let error = FakeServerError(call: "pipe", code: errno, port: port)
            close(socket)
            throw error
        }
        self.listener = socket
        self.port = boundPort
        self.wakeRead = ends[0]
        self.wakeWrite = ends[1]
        self.handler = handler
        self.admits = admits
        self.accepted = accepted
        self.answering = answering
        self.answered = answered
        threads.enter()
        Thread { [self] in
            acceptLoop()
            threads.leave()
        }.start()
    }

    /// Closes the listener and every connection, waits for their threads, then frees the pipe.
    /// Safe to call more than once.
    func stop() {
        let firstCall = connections.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.stopping = true
            state.open.forEach(PosixSocket.shutDown)
            return true
        }
        guard firstCall else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        // Every wait watches the pipe, so threads end promptly; the bound only guards against
        // a thread wedged in a way this code does not foresee, in which case the pipe leaks.
        guard threads.wait(timeout: .now() + 10) == .success else { return }
        close(wakeRead)
        close(wakeWrite)
    }

    /// Closes every open connection, idle or not, and goes on listening: as a server closing
    /// its idle connections does.
    func closeConnections() {
        connections.withLock { state in state.open.forEach(PosixSocket.shutDown) }
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            guard let ready = PosixSocket.waitReadable([wakeRead, listener], milliseconds: -1) else { continue }
            if ready[0] { return }
            guard let client = PosixSocket.accept(from: listener) else { continue }
            accepted()
            guard admits() else {
                close(client)
                continue
            }
            let registered = connections.withLock { state -> Bool in
                guard !state.stopping else { return false }
                state.open.insert(client)
                return true
            }
            guard registered else {
                close(client)
                return
            }
            threads.enter()
            Thread { [self] in
                serve(client)
                threads.leave()
            }.start()
        }
    }

    private func serve(_ client: Int32) {
        var connection = HTTPConnection(socket: client, wake: wakeRead)
        exchange: while true {
            switch connection.next() {
            case .closed:
                break exchange
            case .malformed(let reason):
                let response = HTTPResponse(
                    status: 400, headers: [("Content-Type", "text/plain; charset=utf-8")],
                    body: Array("400 Bad Request: \(reason)\n".utf8))
                _ = connection.send(response, closing: true)
                break exchange
            case .request(let request):
                guard admits() else { break exchange }
                answering(true)
                let reply = handler(request)
                let paused = connection.pause(for: reply.delay)
                answered(reply)
                answering(false)
                guard paused, send(reply, to: request, on: &connection, client: client) else { break exchange }
            }
        }
        // Leave the set before closing, so `stop()` never shuts down a reused descriptor.
        connections.withLock { _ = $0.open.remove(client) }
        close(client)
    }

    /// Carries out a request's reply; false when the connection is to close.
    private func send(_ reply: HTTPReply, to request: HTTPRequest, on connection: inout HTTPConnection, client: Int32) -> Bool {
        switch reply.action {
        case .respond(let response):
            let closing = !request.keepsAlive || request.bodyExceededLimit
            return connection.send(response, closing: closing) && !closing
        case .reset:
            PosixSocket.resetOnClose(client)
            return false
        case .drop:
            return false
        case .hang:
            connection.hold()
            return false
        }
    }
}
