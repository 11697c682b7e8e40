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
    /// For a request that changes state (on the command route): its command's name and when
    /// the server started answering it, counted in flight until its reply is ready.
    var write: FakeState.WriteStart?
}
