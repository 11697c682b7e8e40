@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState

/// The rows: the check and the step here, then the token read (+Reads) and the revocation
/// (+Revocations).
extension RemovalMachineTableTests {
    static let table = checks + steps + reads + heldReads + revocations + currentRevocations + stopHolds

    static let checks: [Case] = [
        Case(
            name: "a run's removal whose pass deregistered the device, its step passed already, has its token revoked, checked, then is deleted",
            outcome: removed(), inRun: true,
            exchanges: [
                (checked(stepPassed: true), .readToken), (read(current), .revoke(name: current)), (.revoke(.revoked), .checkToken(name: current)),
                (.check(.refused), deleted(removed(writes: 2), token: .revoked(name: current))),
            ],
            writes: 1),
        Case(
            name: "a run's removal whose pass failed is left untouched for a later run", outcome: unreachable, inRun: true,
            exchanges: [(checked(stepPassed: false), .finish(.untouched(unreachable)))]),
        Case(
            name: "a run's removal whose pass was skipped is left untouched, its step passed or not", outcome: backingOff, inRun: true,
            exchanges: [(checked(stepPassed: true), .finish(.untouched(backingOff)))]),
        Case(
            name: "a run's removal whose token is refused before its step passed is left untouched, the refusal said as the removal's",
            outcome: refusedNow, inRun: true,
            exchanges: [
                (checked(stepPassed: false), .finish(.untouched(pass(.failed, .authFailed, failure: .server(refusal), skip: .removalTokenRefused))))
            ]),
        Case(
            name:
                "a token refused once the step passed is the removal's own revocation: the pass is read as a deregistration and the removal goes on",
            outcome: refusedNow, inRun: true,
            exchanges: [
                (checked(stepPassed: true), .readToken), (read(current), .revoke(name: current)),
                (.revoke(.refused(revokeRefused)), deleted(pass(.unchanged, .removing), token: TokenRevocation(.refused(name: current)))),
            ]),
        Case(
            name: "signed in again before the check: the removal ends there, its refused pass said as it was", outcome: refusedNow, inRun: true,
            exchanges: [
                (
                    checked(stepPassed: true, stillRemoving: false),
                    .finish(.signedInAgain(pass(.failed, .authFailed, failure: .server(refusal), skip: .removalTokenRefused)))
                )
            ]),
        Case(
            name: "signed in again before the step: the step does not run", outcome: removed(),
            exchanges: [(checked(stepPassed: false, stillRemoving: false), .finish(.signedInAgain(removed())))]),
        Case(
            name: "a removal not deregistered and signed in again ends as signed in again, not held", outcome: unreachable,
            exchanges: [(checked(stepPassed: false, stillRemoving: false), .finish(.signedInAgain(unreachable)))]),
        Case(
            name: "remove-account's removal whose pass failed is held for the pass's failure", outcome: unreachable,
            exchanges: [
                (
                    checked(stepPassed: false),
                    kept(pass(.failed, .removing, failure: .server(passDown)), for: .deregistrationFailed(.server(passDown)))
                )
            ]),
        Case(
            name: "remove-account's removal whose token is refused before its step passed is held as not deregistered, the refusal still said",
            outcome: refusedNow,
            exchanges: [
                (
                    checked(stepPassed: false),
                    kept(pass(.failed, .authFailed, failure: .server(refusal)), for: .deregistrationFailed(.server(refusal)))
                )
            ]),
        Case(
            name: "a pass skipped for the keyring that holds the token is held for the keyring", outcome: keyringLocked,
            exchanges: [
                (
                    checked(stepPassed: true),
                    kept(pass(.failed, .removing, failure: keyring, skip: .keyringUnavailable(.locked)), for: .deregistrationFailed(keyring))
                )
            ]),
        Case(
            name: "a pass skipped otherwise, with no failure recorded, is held for a server that could not be reached", outcome: backingOff,
            exchanges: [
                (
                    checked(stepPassed: false),
                    kept(
                        pass(.failed, .removing, failure: .local(.other(unreached)), skip: .backingOff),
                        for: .deregistrationFailed(.local(.other(unreached))))
                )
            ]),
        Case(
            name: "a pass skipped with the failure an earlier run recorded is held for that failure",
            outcome: pass(.skipped, .error, failure: .recorded("connection refused"), skip: .backingOff),
            exchanges: [
                (
                    checked(stepPassed: false),
                    kept(
                        pass(.failed, .removing, failure: .recorded("connection refused"), skip: .backingOff),
                        for: .deregistrationFailed(.recorded("connection refused")))
                )
            ]),
        Case(
            name: "--force deletes a removal not deregistered without sending anything with its token, which stays valid",
            outcome: unreachable, force: true,
            exchanges: [
                (checked(stepPassed: false), .readToken),
                (
                    read(current, stale: [stale]),
                    deleted(
                        unreachable, hold: .deregistrationFailed(.server(passDown)),
                        token: TokenRevocation(.notRevoked(name: current), staleLeft: [stale]))
                ),
            ]),
        Case(
            name: "--force deletes a removal whose token was refused, the token said refused", outcome: refusedNow, force: true,
            exchanges: [
                (checked(stepPassed: false), .readToken),
                (read(current), deleted(refusedNow, hold: .deregistrationFailed(.server(refusal)), token: TokenRevocation(.refused(name: current)))),
            ]),
        Case(
            name: "a stop holds a removal not deregistered whatever --force says", outcome: unreachable, force: true, stopping: true,
            exchanges: [
                (
                    checked(stepPassed: false),
                    kept(pass(.failed, .removing, failure: .server(passDown)), for: .deregistrationFailed(.server(passDown)))
                )
            ]),
    ]

    static let steps: [Case] = [
        Case(
            name: "the step runs when it has not passed in this removal; a token with no name is then deleted here only", outcome: removed(),
            exchanges: [
                (checked(stepPassed: false), .runStep), (.stepRan(nil), .readToken),
                (.tokenRead(.none, stillRemoving: true), deleted(removed(), token: .unnamed)),
            ]),
        Case(
            name: "a stop once the step passed holds nothing: only a hold is kept at a stop", outcome: removed(), stopping: true,
            exchanges: [(checked(stepPassed: false), .runStep), (.stepRan(nil), .readToken), (read(nil), deleted(removed(), token: .unnamed))]),
        Case(
            name: "a step that fails holds the removal, its status saved by the step", outcome: removed(),
            exchanges: [
                (checked(stepPassed: false), .runStep),
                (stepFailed, kept(heldRemoved(.local(.removalStep(hookFailed))), for: .stepFailed(hookFailed))),
            ]),
        Case(
            name: "--force goes past a step that failed: the token is revoked, checked, and the account deleted", outcome: removed(), force: true,
            exchanges: [
                (checked(stepPassed: false), .runStep), (stepFailed, .readToken), (read(current), .revoke(name: current)),
                (.revoke(.revoked), .checkToken(name: current)),
                (.check(.refused), deleted(removed(writes: 2), hold: .stepFailed(hookFailed), token: .revoked(name: current))),
            ],
            writes: 1),
        Case(
            name: "a step a stop interrupted ends the removal as interrupted", outcome: removed(),
            exchanges: [
                (checked(stepPassed: false), .runStep),
                (stepStopped, .finish(.interrupted(heldRemoved(.local(.removalStep(hookStopped))), reason: hookStopped))),
            ]),
        Case(
            name: "a step a stop interrupted ends the removal as interrupted even with --force", outcome: removed(), force: true,
            exchanges: [
                (checked(stepPassed: false), .runStep),
                (stepStopped, .finish(.interrupted(heldRemoved(.local(.removalStep(hookStopped))), reason: hookStopped))),
            ]),
        Case(
            name: "a step that failed at a stop holds the removal whatever --force says", outcome: removed(), force: true, stopping: true,
            exchanges: [
                (checked(stepPassed: false), .runStep),
                (stepFailed, kept(heldRemoved(.local(.removalStep(hookFailed))), for: .stepFailed(hookFailed))),
            ]),
    ]
}
