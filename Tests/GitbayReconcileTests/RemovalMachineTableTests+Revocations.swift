@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState

/// The rows of the revocation: the stale names, then the current one and its check.
extension RemovalMachineTableTests {
    /// A removal whose step passed already, its token read as `current` with `stale` names.
    static func revoking(_ stale: [String] = [], current: String? = current, first: String) -> [(Answer, Effect)] {
        [(checked(stepPassed: true), .readToken), (read(current, stale: stale), .revoke(name: first))]
    }

    static let revocations: [Case] = [
        Case(
            name: "stale names first, one the server does not know, then the current one last, checked refused: revoked",
            outcome: removed(),
            exchanges: revoking([stale, older, current], first: stale) + [
                (.revoke(.revoked), .revoke(name: older)), (.revoke(.unknownName), .revoke(name: current)),
                (.revoke(.revoked), .checkToken(name: current)), (.check(.refused), deleted(removed(writes: 4), token: .revoked(name: current))),
            ],
            writes: 3),
        Case(
            name: "a token with no name has its stale names revoked, and is deleted here only", outcome: removed(),
            exchanges: revoking([stale], current: nil, first: stale) + [(.revoke(.revoked), deleted(removed(writes: 2), token: .unnamed))],
            writes: 1),
        Case(
            name: "refused at a stale name: the token works nowhere, the stale names not revoked are left", outcome: removed(),
            exchanges: revoking([stale, older], first: stale) + [
                (.revoke(.refused(revokeRefused)), deleted(removed(), token: TokenRevocation(.refused(name: current), staleLeft: [stale, older])))
            ]),
        Case(
            name: "a stale name's revocation that fails holds the removal for that name", outcome: removed(),
            exchanges: revoking([stale], first: stale) + [
                (
                    .revoke(.failed(down)),
                    kept(
                        heldRemoved(.server(down)), for: .revocationFailed(name: stale, failure: .server(down)),
                        saving: saving(AccountRemoval.revocationFailedDetail, .server(down)))
                )
            ]),
        Case(
            name: "--force past a stale name's failed revocation deletes, the tokens said as they were before it", outcome: removed(), force: true,
            exchanges: revoking([stale], first: stale) + [
                (
                    .revoke(.failed(down)),
                    deleted(
                        removed(), hold: .revocationFailed(name: stale, failure: .server(down)),
                        token: TokenRevocation(.notRevoked(name: current), staleLeft: [stale]))
                )
            ]),
        Case(
            name: "--force past a later stale name's failed revocation: the one revoked before it is not said left", outcome: removed(),
            force: true,
            exchanges: revoking([stale, older], first: stale) + [
                (.revoke(.revoked), .revoke(name: older)),
                (
                    .revoke(.failed(down)),
                    deleted(
                        removed(writes: 2), hold: .revocationFailed(name: older, failure: .server(down)),
                        token: TokenRevocation(.notRevoked(name: current), staleLeft: [older]))
                ),
            ],
            writes: 1),
        Case(
            name: "a stale name's revocation a stop cut short holds the removal whatever --force says, its writes counted", outcome: removed(),
            force: true,
            exchanges: revoking([stale, older], first: stale) + [
                (.revoke(.revoked), .revoke(name: older)),
                (
                    .revoke(.failed(cancelled)),
                    kept(
                        heldRemoved(.server(cancelled), writes: 2), for: .revocationFailed(name: older, failure: .server(cancelled)),
                        saving: saving(AccountRemoval.revocationInterruptedDetail, .server(cancelled)))
                ),
            ],
            writes: 1),
    ]

    static let currentRevocations: [Case] = [
        Case(
            name: "the current token refused at its revocation works nowhere: deleted as refused", outcome: removed(),
            exchanges: revoking(first: current) + [
                (.revoke(.refused(revokeRefused)), deleted(removed(), token: TokenRevocation(.refused(name: current))))
            ]),
        Case(
            name: "a name the server does not know, and the token still works: held, its status saying so", outcome: removed(),
            exchanges: revoking(first: current) + [
                (.revoke(.unknownName), .checkToken(name: current)),
                (
                    .check(.accepted),
                    kept(
                        heldRemoved(stillAccepted(nameKnown: false), writes: 2), for: .tokenStillValid(name: current, nameKnown: false),
                        saving: saving(AccountRemoval.tokenStillValidDetail, stillAccepted(nameKnown: false)))
                ),
            ],
            writes: 1),
        Case(
            name: "--force deletes a token that still works after its name was revoked, held for it", outcome: removed(), force: true,
            exchanges: revoking(first: current) + [
                (.revoke(.revoked), .checkToken(name: current)),
                (
                    .check(.accepted),
                    deleted(
                        removed(writes: 2), hold: .tokenStillValid(name: current, nameKnown: true),
                        token: TokenRevocation(.stillValid(name: current, nameKnown: true)))
                ),
            ],
            writes: 1),
        Case(
            name: "--force past a failed step and a token that still works: held for the step", outcome: removed(), force: true,
            exchanges: [
                (checked(stepPassed: false), .runStep), (stepFailed, .readToken), (read(current), .revoke(name: current)),
                (.revoke(.revoked), .checkToken(name: current)),
                (
                    .check(.accepted),
                    deleted(removed(writes: 2), hold: .stepFailed(hookFailed), token: TokenRevocation(.stillValid(name: current, nameKnown: true)))
                ),
            ],
            writes: 1),
        Case(
            name: "the current token's revocation that fails holds the removal", outcome: removed(),
            exchanges: revoking(first: current) + [
                (
                    .revoke(.failed(down)),
                    kept(
                        heldRemoved(.server(down)), for: .revocationFailed(name: current, failure: .server(down)),
                        saving: saving(AccountRemoval.revocationFailedDetail, .server(down)))
                )
            ]),
        Case(
            name: "--force past the current token's failed revocation deletes it, said not revoked", outcome: removed(), force: true,
            exchanges: revoking(first: current) + [
                (
                    .revoke(.failed(down)),
                    deleted(removed(), hold: .revocationFailed(name: current, failure: .server(down)), token: .notRevoked(name: current))
                )
            ]),
        Case(
            name: "the current token's revocation a stop cut short holds the removal whatever --force says", outcome: removed(), force: true,
            exchanges: revoking(first: current) + [
                (
                    .revoke(.failed(cancelled)),
                    kept(
                        heldRemoved(.server(cancelled)), for: .revocationFailed(name: current, failure: .server(cancelled)),
                        saving: saving(AccountRemoval.revocationInterruptedDetail, .server(cancelled)))
                )
            ]),
        Case(
            name: "a check that fails leaves the token not known revoked: held, its write counted", outcome: removed(),
            exchanges: revoking(first: current) + [
                (.revoke(.revoked), .checkToken(name: current)),
                (
                    .check(.failed(down)),
                    kept(
                        heldRemoved(.server(down), writes: 2), for: .revocationFailed(name: current, failure: .server(down)),
                        saving: saving(AccountRemoval.revocationFailedDetail, .server(down)))
                ),
            ],
            writes: 1),
        Case(
            name: "a check a stop cut short holds the removal whatever --force says", outcome: removed(), force: true,
            exchanges: revoking(first: current) + [
                (.revoke(.revoked), .checkToken(name: current)),
                (
                    .check(.failed(cancelled)),
                    kept(
                        heldRemoved(.server(cancelled), writes: 2), for: .revocationFailed(name: current, failure: .server(cancelled)),
                        saving: saving(AccountRemoval.revocationInterruptedDetail, .server(cancelled)))
                ),
            ],
            writes: 1),
    ]

    /// Holds found at the token read or by the revocation, at a stop: held whatever `--force` says.
    static let stopHolds: [Case] = [
        Case(
            name: "a stop holds a removal whose keyring does not give the token whatever --force says", outcome: removed(), force: true,
            stopping: true,
            exchanges: [
                (checked(stepPassed: true), .readToken),
                (
                    unread(current, stale: [stale]),
                    kept(
                        heldRemoved(keyring), for: .revocationFailed(name: current, failure: keyring),
                        saving: saving(AccountRemoval.revocationFailedDetail, keyring))
                ),
            ]),
        Case(
            name: "a stop holds a token that still works after its name was revoked whatever --force says", outcome: removed(), force: true,
            stopping: true,
            exchanges: revoking(first: current) + [
                (.revoke(.revoked), .checkToken(name: current)),
                (
                    .check(.accepted),
                    kept(
                        heldRemoved(stillAccepted(nameKnown: true), writes: 2), for: .tokenStillValid(name: current, nameKnown: true),
                        saving: saving(AccountRemoval.tokenStillValidDetail, stillAccepted(nameKnown: true)))
                ),
            ],
            writes: 1),
    ]

    static func stillAccepted(nameKnown: Bool) -> AccountFailure { .local(.tokenStillAccepted(name: current, nameKnown: nameKnown)) }
}
