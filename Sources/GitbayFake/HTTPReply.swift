/// What the server does with a request: answer it, reset the connection or hold it.
struct HTTPReply: Sendable {
    enum Action: Sendable {
        case respond(HTTPResponse)
        /// Close without a reply (a TCP reset).
        case reset
        /// Close without a reply (an orderly close), as a server going down does.
        case drop
        /// Keep the connection open and never answer.
        case hang
    }

    var action: Action
    /// Waited before acting (the server's configured latency).
    var delay: Duration = .zero
}
