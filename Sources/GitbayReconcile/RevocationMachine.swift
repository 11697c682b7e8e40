import GitbayAPI

/// The revocation of an account's tokens at its removal, as a value: an answer in, the next
/// request (or the end) out. Everything it decides is here: the stale tokens this install
/// minted go first, whether or not the current one has a name; the current one goes last, as
/// the last revocation sent with it; and it is called revoked only once the token itself is
/// refused (`whoami` answers 401), since `token revoke <name>` names a token, not this one. A
/// stale name the server does not know (404) is revoked already. Once the server refuses the
/// token, nothing more can be sent with it: the stale names not yet revoked are left, and said.
///
/// `AccountRemoval` sends the requests with the account's own client and hands the answers in.
struct RevocationMachine: Sendable {
    /// What the driver does next.
    enum Effect: Sendable, Equatable {
        /// `token revoke <name>`, sent with the current token.
        case revoke(name: String)
        /// `whoami` with the current token, whose name was just revoked.
        case checkToken(name: String)
        /// The end.
        case finish(Result<TokenRevocation, Failure>)
    }

    /// A revocation that did not go through: the name it was for, what failed, and the stale
    /// names not revoked by then.
    struct Failure: Error, Sendable, Equatable {
        let name: String
        let failure: AccountFailure
        var staleLeft: [String] = []
    }

    /// How the server answered `token revoke <name>`.
    enum RevokeAnswer: Sendable, Equatable {
        /// Revoked.
        case revoked
        /// No token of that name (404): nothing of that name works.
        case unknownName
        /// The token the request was sent with is refused (401).
        case refused(GitbayError)
        case failed(GitbayError)
    }

    /// How the server answered `whoami` with the current token.
    enum CheckAnswer: Sendable, Equatable {
        /// It still works.
        case accepted
        /// It is refused (401): revoked.
        case refused
        case failed(GitbayError)
    }

    private enum State: Sendable, Equatable {
        case initial(current: String?, stale: [String])
        /// `token revoke` of `stale.first` in flight.
        case revokingStale(current: String?, stale: [String])
        case revokingCurrent(name: String)
        case checking(name: String, nameKnown: Bool)
        case finished
    }

    private var state: State
    /// The revocations the server answered (revoked, or no such name): its writes.
    private(set) var writes = 0

    /// The machine for a token named `current` (nil: pasted without a name) and the stale
    /// names this install recorded for the account.
    init(current: String?, staleNames: [String]) {
        state = .initial(current: current, stale: staleNames.filter { $0 != current })
    }

    /// True once the machine has finished.
    var isFinished: Bool { state == .finished }

    /// The first request, or the end when there is nothing to revoke.
    mutating func start() -> Effect {
        guard case .initial(let current, let stale) = state else { preconditionFailure("started twice") }
        return next(current: current, stale: stale)
    }

    /// The answer to the `token revoke` in flight.
    mutating func revokeAnswered(_ answer: RevokeAnswer) -> Effect {
        switch state {
        case .revokingStale(let current, var stale):
            switch answer {
            case .refused: return finish(.success(TokenRevocation(.refused(name: current), staleLeft: stale)))
            case .failed(let error): return finish(.failure(Failure(name: stale[0], failure: .server(error), staleLeft: stale)))
            case .revoked, .unknownName:
                writes += 1
                stale.removeFirst()
                return next(current: current, stale: stale)
            }
        case .revokingCurrent(let name):
            switch answer {
            case .refused: return finish(.success(TokenRevocation(.refused(name: name))))
            case .failed(let error): return finish(.failure(Failure(name: name, failure: .server(error))))
            case .revoked, .unknownName:
                writes += 1
                state = .checking(name: name, nameKnown: answer == .revoked)
                return .checkToken(name: name)
            }
        case .initial, .checking, .finished:
            preconditionFailure("a revocation's answer in \(state)")
        }
    }

    /// The answer to the `whoami` that checks the current token.
    mutating func tokenChecked(_ answer: CheckAnswer) -> Effect {
        guard case .checking(let name, let nameKnown) = state else { preconditionFailure("a check's answer in \(state)") }
        switch answer {
        case .accepted: return finish(.success(TokenRevocation(.stillValid(name: name, nameKnown: nameKnown))))
        case .refused: return finish(.success(.revoked(name: name)))
        case .failed(let error): return finish(.failure(Failure(name: name, failure: .server(error))))
        }
    }

    private mutating func next(current: String?, stale: [String]) -> Effect {
        if let first = stale.first {
            state = .revokingStale(current: current, stale: stale)
            return .revoke(name: first)
        }
        guard let current else { return finish(.success(.unnamed)) }
        state = .revokingCurrent(name: current)
        return .revoke(name: current)
    }

    private mutating func finish(_ result: Result<TokenRevocation, Failure>) -> Effect {
        state = .finished
        return .finish(result)
    }
}
