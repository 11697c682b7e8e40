import GitbayAPI
import GitbaySupport

extension PassDriver {
    /// What the loop carries from step to step.
    ///
    /// `@unchecked Sendable` invariant: one owner at a time. The run's loop owns it while its
    /// first list is in flight (`startFirstList`) and until it hands it to the account's task;
    /// the task then owns it to the end. The list's completion does not touch it.
    final class Carrier: @unchecked Sendable {
        var pass: AccountPass
        var step: AccountPass.Step
        var client: Result<GitbayClient, any Error>
        let logger: Logger
        /// Requests of the clients of superseded passes.
        var spent = 0
        /// An add answered without its id, whose row is not recorded yet.
        var addUnsettled = false
        /// The first list's exchange, started before the loop began (`startFirstList`).
        var ahead: ListAhead?
        /// The API token the client sends.
        var token: Secret?

        init(pass: AccountPass, client: Result<GitbayClient, any Error>, token: Secret?, logger: Logger) {
            self.pass = pass
            self.client = client
            self.token = token
            self.logger = logger
            step = self.pass.begin()
        }
    }
}

extension PassDriver.Carrier {
    /// Hands `event` to the pass, and keeps the step it asks for. Not inlined: what deciding
    /// builds stays out of the async frames.
    @inline(never)
    func next(after event: AccountPass.Event) {
        step = pass.handle(event)
    }

    /// Starts the pass's first list with no task waiting for it; nil when the pass does not
    /// begin with a list its client can send.
    func startFirstList(_ completion: @escaping @Sendable (ListAhead) -> Void) -> TransportTransfer? {
        guard case .list(let tag) = step, case .success(let client) = client else { return nil }
        return client.startListAhead(ifNoneMatch: tag, completion: completion)
    }

    /// The first list's exchange if sent ahead, once.
    @inline(never)
    func takeAhead() -> ListAhead? {
        defer { ahead = nil }
        return ahead
    }

    /// The tag the list in hand is sent with.
    @inline(never)
    var tagToSend: String? {
        guard case .list(let tag) = step else { preconditionFailure("not a list") }
        return tag
    }

    var isFinished: Bool {
        if case .finish = step { return true }
        return false
    }
}
