@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState

/// The rows of the token read: with no hold, and with one `--force` overrides.
extension RemovalMachineTableTests {
    /// The reads, one of each kind, made after a sign-in took the account out of its removal.
    static let readsSignedInAgain: [(String, Answer)] = [
        ("a named token", read(current, stale: [stale], stillRemoving: false)), ("a token with no name", read(nil, stillRemoving: false)),
        ("no token", .tokenRead(.none, stillRemoving: false)), ("a token the keyring did not give", unread(current, stillRemoving: false)),
    ]

    static let reads: [Case] =
        [
            Case(
                name: "a keyring that does not give the token holds the removal: the token cannot be revoked yet", outcome: removed(),
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
                name: "a keyring that does not give the token holds the removal before the sign-in since is looked at", outcome: removed(),
                exchanges: [
                    (checked(stepPassed: true), .readToken),
                    (
                        unread(nil, stillRemoving: false),
                        kept(
                            heldRemoved(keyring), for: .revocationFailed(name: "", failure: keyring),
                            saving: saving(AccountRemoval.revocationFailedDetail, keyring))
                    ),
                ]),
            Case(
                name: "--force deletes past a keyring that does not give the token: not read, it is said unread, its stale names left but its own",
                outcome: removed(), force: true,
                exchanges: [
                    (checked(stepPassed: true), .readToken),
                    (
                        unread(current, stale: [stale, current]),
                        deleted(
                            removed(), hold: .revocationFailed(name: current, failure: keyring),
                            token: TokenRevocation(.unread(name: current), staleLeft: [stale]))
                    ),
                ]),
        ]
        + readsSignedInAgain.map { read, answer in
            Case(
                name: "\(read), read after a sign-in since, ends the removal as signed in again (with --force, which holds no unread token)",
                outcome: removed(), force: true,
                exchanges: [(checked(stepPassed: true), .readToken), (answer, .finish(.signedInAgain(removed())))])
        }

    static let heldReads: [Case] =
        [
            Case(
                name: "--force past a failed step deletes an account with no token", outcome: removed(), force: true,
                exchanges: [
                    (checked(stepPassed: false), .runStep), (stepFailed, .readToken),
                    (.tokenRead(.none, stillRemoving: true), deleted(removed(), hold: .stepFailed(hookFailed), token: .unnamed)),
                ]),
            Case(
                name: "--force past a failed step and a keyring that does not give the token: held for the step, the token said unread",
                outcome: removed(), force: true,
                exchanges: [
                    (checked(stepPassed: false), .runStep), (stepFailed, .readToken),
                    (
                        unread(current, stale: [stale]),
                        deleted(removed(), hold: .stepFailed(hookFailed), token: TokenRevocation(.unread(name: current), staleLeft: [stale]))
                    ),
                ]),
            Case(
                name: "--force past a failed deregistration deletes a token with no name", outcome: unreachable, force: true,
                exchanges: [
                    (checked(stepPassed: false), .readToken),
                    (read(nil), deleted(unreachable, hold: .deregistrationFailed(.server(passDown)), token: .unnamed)),
                ]),
            Case(
                name: "--force past a keyring that did not give the token to the pass, nor to the removal: held for the pass's",
                outcome: keyringLocked, force: true,
                exchanges: [
                    (checked(stepPassed: true), .readToken),
                    (
                        unread(nil, stale: [stale]),
                        deleted(keyringLocked, hold: .deregistrationFailed(keyring), token: TokenRevocation(.unread(name: nil), staleLeft: [stale]))
                    ),
                ]),
        ]
        + readsSignedInAgain.map { read, answer in
            Case(
                name: "\(read), read under --force's override after a sign-in since, ends the removal as signed in again", outcome: unreachable,
                force: true, exchanges: [(checked(stepPassed: false), .readToken), (answer, .finish(.signedInAgain(unreachable)))])
        }
}
