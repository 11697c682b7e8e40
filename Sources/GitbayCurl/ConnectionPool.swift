import GitbayAPI
import Synchronization

/// The HTTP connections of every client given it, and the one event loop their transfers run
/// on, and the TLS sessions they resume. A connection is reused only by requests to the same instance (scheme, host and port):
/// over HTTP/1.1 accounts of one instance take turns on a few connections, and where an
/// `https` instance offers HTTP/2 their concurrent requests share one connection as streams.
/// Each client keeps its own token and settings; a connection carries no credentials of its
/// own, since every request sends its token in its `Authorization` header.
///
/// Share one pool among the clients of a run; `shared` is the process's.
package final class ConnectionPool: Sendable {
    /// The pool clients use unless given another.
    package static let shared = ConnectionPool()

    /// The event loop and the TLS sessions; or, when libcurl cannot be opened, why requests
    /// cannot be sent.
    private let parts: Result<Parts, TransportError>
    /// Easy handles not carrying a request right now, kept for the next request of any client:
    /// a handle is reset before each request, and credentials travel in its headers only.
    private let idleHandles = Mutex<[CurlEasyHandle]>([])
    /// The most idle easy handles kept: as many as a run has requests in flight by default
    /// (`Reconciler.Options.defaultConcurrency`), so that its later requests make none anew.
    package static let maxIdleHandles = 256

    /// The most connections open to one instance at once: requests beyond them wait for one
    /// (over HTTP/2 they are streams of it).
    package static let defaultConnectionsPerInstance = 8

    /// Starts the pool's event loop. `maxIdleConnections` bounds the connections kept open
    /// between requests, all instances together; more are closed as their requests end.
    /// `connectionsPerInstance` bounds those open to one instance (host and port).
    package init(maxIdleConnections: Int = 64, connectionsPerInstance: Int = defaultConnectionsPerInstance) {
        parts = CurlLibrary.loaded.map { _ in
            Parts(
                loop: CurlEventLoop(maxIdleConnections: maxIdleConnections, connectionsPerInstance: connectionsPerInstance),
                sessions: CurlSessionShare()
            )
        }
    }

    /// Opens libcurl now (it is opened once, on first use), or says why requests cannot be sent.
    package static func openLibcurl() throws(TransportError) {
        _ = try CurlLibrary.loaded.get()
    }

    private struct Parts: Sendable {
        let loop: CurlEventLoop
        let sessions: CurlSessionShare
    }

    /// The event loop the pool's transfers run on.
    var loop: CurlEventLoop {
        get throws(TransportError) { try parts.get().loop }
    }

    /// An idle easy handle, or a new one.
    func borrowHandle() throws(TransportError) -> CurlEasyHandle {
        let sessions = try parts.get().sessions
        return idleHandles.withLock { $0.popLast() } ?? CurlEasyHandle(sessions: sessions)
    }

    /// Takes back a handle whose transfer has ended and left the event loop.
    func giveBack(_ handle: CurlEasyHandle) {
        idleHandles.withLock { idle in
            if idle.count < Self.maxIdleHandles { idle.append(handle) }
        }
    }

    deinit {
        if case .success(let parts) = parts { parts.loop.stop() }
    }
}
