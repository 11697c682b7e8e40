import Foundation

@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// The rows: where `start(at:)` leads, the clean-up, then the rotation.
extension RenewalMachineTableTests {
    static let table = starts + cleanUps + rotations

    static let starts: [Case] = [
        Case(
            name: "a token far from its expiry, with no stale names, ends at once with nothing sent", facts: facts(expiresIn: 80 * day),
            first: ended(), exchanges: [], writes: 0),
        Case(
            name: "a pasted token, with neither name nor lifetime, is neither cleaned up after nor rotated",
            facts: facts(name: nil, expiresIn: nil, lifetime: nil), first: ended(), exchanges: [], writes: 0),
        Case(
            name: "a token another install minted is never rotated here, however near its expiry, nor are that install's stale names cleaned up",
            facts: facts(name: foreign, expiresIn: day, stale: [foreign + "-r20260101000000"]), first: ended(), exchanges: [], writes: 0),
        Case(
            name: "a token near its expiry that the keyring holds is not rotated when there is no keyring to take its successor",
            facts: facts(expiresIn: day, item: inUse, keyringPresent: false), first: ended(), exchanges: [], writes: 0),
        Case(
            name: "a token due already in the second it was minted is not rotated again: its successor would bear its name",
            facts: facts(name: successor, expiresIn: 1, lifetime: .seconds(3)), first: ended(), exchanges: [], writes: 0),
    ]

    static let cleanUps: [Case] = [
        Case(
            name:
                "a stale name still listed but gone (404) counts as revoked, its item deleted and its name forgotten; one not listed is only forgotten, its item in use kept",
            facts: facts(expiresIn: 80 * day, stale: [stale, gone], item: inUse, staleItems: [stale: "old", gone: inUse]), first: .listTokens,
            exchanges: [
                (listed([current, stale]), .revoke(name: stale)), (.revokeAnswered(.unknownName), .forgetPendingMint(name: stale)),
                (.stepDone, .deleteItem("old")), (.stepDone, .forgetStaleName(stale)), (.stepDone, .forgetStaleName(gone)),
                (.stepDone, ended(revoked: [stale])),
            ],
            writes: 1),
        Case(
            name: "the current token's name among the stale names is never revoked, nor its item in use deleted: the name is only forgotten",
            facts: facts(expiresIn: 80 * day, stale: [current], item: inUse, staleItems: [current: inUse]), first: .listTokens,
            exchanges: [(listed([current]), .forgetStaleName(current)), (.stepDone, ended())], writes: 0),
        Case(
            name: "another install's stale names are neither revoked nor forgotten, and an expiry known already is not recorded again",
            facts: facts(expiresIn: 80 * day, stale: [foreign, stale]), first: .listTokens,
            exchanges: [
                (listed([foreign, stale, current], expiries: [current: now.addingTimeInterval(80 * day)]), .revoke(name: stale)),
                (.revokeAnswered(.revoked), .forgetPendingMint(name: stale)), (.stepDone, .forgetStaleName(stale)),
                (.stepDone, ended(revoked: [stale])),
            ],
            writes: 1),
        Case(
            name: "a stale name no longer listed is not revoked, yet its item is deleted and its name forgotten",
            facts: facts(expiresIn: 80 * day, stale: [stale], staleItems: [stale: "old"]), first: .listTokens,
            exchanges: [(listed([current]), .deleteItem("old")), (.stepDone, .forgetStaleName(stale)), (.stepDone, ended())], writes: 0),
        Case(
            name: "after the clean-up, a token due already rotates, its successor named at the time of the list",
            facts: facts(expiresIn: day, stale: [stale]), first: .listTokens,
            exchanges: [
                (listed([current, stale], at: later), .revoke(name: stale)), (.revokeAnswered(.revoked), .forgetPendingMint(name: stale)),
                (.stepDone, .forgetStaleName(stale)), (.stepDone, .recordSuccessor(name: laterSuccessor, keyringItem: nil, at: later)),
                (.failed(.other(storeDown)), ended(revoked: [stale], failure: storeDown)),
            ],
            writes: 1),
        Case(
            name: "an expiry not known yet is taken from the list and recorded; near already, the token rotates after the clean-up",
            facts: facts(expiresIn: nil), first: .listTokens,
            exchanges: [
                (
                    listed([current], expiries: [current: now.addingTimeInterval(day)], at: later),
                    .recordExpiry(now.addingTimeInterval(day), name: current)
                ),
                (.stepDone, .recordSuccessor(name: laterSuccessor, keyringItem: nil, at: later)),
                (.stepDone, .mint(name: laterSuccessor, ttl: "90d")),
                (.failed(.other(.server(down))), ended(failure: .server(down))),
            ],
            writes: 0),
        Case(
            name: "an expiry not known yet, far off once listed, is recorded and nothing is rotated",
            facts: facts(expiresIn: nil), first: .listTokens,
            exchanges: [
                (
                    listed([current], expiries: [current: now.addingTimeInterval(80 * day)]),
                    .recordExpiry(now.addingTimeInterval(80 * day), name: current)
                ),
                (.stepDone, ended()),
            ],
            writes: 0),
        Case(
            name: "an expiry not known yet that the list does not tell stays unknown, and nothing is rotated", facts: facts(expiresIn: nil),
            first: .listTokens, exchanges: [(listed([current, stale]), ended())], writes: 0),
        Case(
            name: "after the clean-up, a token due that the keyring holds is not rotated when there is no keyring",
            facts: facts(expiresIn: day, stale: [stale], item: inUse, keyringPresent: false), first: .listTokens,
            exchanges: [(listed([current]), .forgetStaleName(stale)), (.stepDone, ended())], writes: 0),
        Case(
            name: "a refused list ends the renewal as refused", facts: facts(expiresIn: 80 * day, stale: [stale]), first: .listTokens,
            exchanges: [(.failed(.refused(refusal)), ended(refused: refusal))], writes: 0),
        Case(
            name: "a list that fails ends the renewal with its failure", facts: facts(expiresIn: 80 * day, stale: [stale]), first: .listTokens,
            exchanges: [(.failed(.other(.server(down))), ended(failure: .server(down)))], writes: 0),
        Case(
            name: "an expiry the store does not take ends the renewal with the store's failure", facts: facts(expiresIn: nil), first: .listTokens,
            exchanges: [
                (
                    listed([current], expiries: [current: now.addingTimeInterval(80 * day)]),
                    .recordExpiry(now.addingTimeInterval(80 * day), name: current)
                ),
                (.failed(.other(storeDown)), ended(failure: storeDown)),
            ],
            writes: 0),
        Case(
            name: "a stale name's revocation refused ends the renewal as refused", facts: facts(expiresIn: 80 * day, stale: [stale]),
            first: .listTokens,
            exchanges: [(listed([current, stale]), .revoke(name: stale)), (.revokeAnswered(.refused(refusal)), ended(refused: refusal))], writes: 0),
        Case(
            name: "a stale name's revocation that fails ends the renewal with its failure", facts: facts(expiresIn: 80 * day, stale: [stale]),
            first: .listTokens,
            exchanges: [(listed([current, stale]), .revoke(name: stale)), (.revokeAnswered(.failed(down)), ended(failure: .server(down)))], writes: 0),
        Case(
            name: "a revoked name the store does not forget as a pending mint is still reported revoked",
            facts: facts(expiresIn: 80 * day, stale: [stale]), first: .listTokens,
            exchanges: [
                (listed([current, stale]), .revoke(name: stale)), (.revokeAnswered(.revoked), .forgetPendingMint(name: stale)),
                (.failed(.other(storeDown)), ended(revoked: [stale], failure: storeDown)),
            ],
            writes: 1),
        Case(
            name: "a stale item the keyring does not let go of ends the renewal waiting for the keyring",
            facts: facts(expiresIn: 80 * day, stale: [stale], item: inUse, staleItems: [stale: "old"]), first: .listTokens,
            exchanges: [
                (listed([current, stale]), .revoke(name: stale)), (.revokeAnswered(.revoked), .forgetPendingMint(name: stale)),
                (.stepDone, .deleteItem("old")), (.failed(.keyring(.locked)), ended(revoked: [stale], waitingFor: .locked)),
            ],
            writes: 1),
        Case(
            name: "a stale name the store does not forget ends the renewal with the store's failure",
            facts: facts(expiresIn: 80 * day, stale: [stale]),
            first: .listTokens, exchanges: [(listed([current]), .forgetStaleName(stale)), (.failed(.other(storeDown)), ended(failure: storeDown))],
            writes: 0),
    ]

    /// The expiry the server lists for the successor.
    static let successorExpiry = now.addingTimeInterval(90 * day)

    /// A rotation from its recorded name up to the swap asked for: the successor minted, written
    /// to `item` when the keyring holds the token, and its expiry learned as `expiry`.
    static func upToTheSwap(item: String? = nil, expiry: Date? = successorExpiry) -> [(Event, Effect)] {
        let details = APITokenDetails(name: successor, expiresAt: expiry, lifetime: lifetime)
        let stored: [(Event, Effect)] =
            if let item { [(.minted(token), .storeInKeyring(token, item: item)), (.stepDone, .learnExpiry(name: successor))] } else {
                [(.minted(token), .learnExpiry(name: successor))]
            }
        return [(.stepDone, .mint(name: successor, ttl: "90d"))] + stored + [
            (.expiryLearned(expiry), .replace(predecessor: current, token: token, keyringItem: item, details: details, at: now))
        ]
    }

    static let rotations: [Case] = [
        Case(
            name:
                "near its expiry, a token the database holds is rotated: its successor's name recorded before the mint, its expiry learned, the swap, then the predecessor revoked and forgotten",
            facts: facts(expiresIn: day), first: .recordSuccessor(name: successor, keyringItem: nil, at: now),
            exchanges: upToTheSwap() + [
                (.replaced(true), .revoke(name: current)), (.revokeAnswered(.revoked), .forgetStaleName(current)),
                (.stepDone, ended(rotatedTo: successor, predecessorRevoked: true)),
            ],
            writes: 2),
        Case(
            name:
                "near its expiry, a token the keyring holds gets its successor in an item of its own; the predecessor refused at its revocation counts as revoked, and its item is deleted",
            facts: facts(expiresIn: day, item: inUse), first: .recordSuccessor(name: successor, keyringItem: successorItem, at: now),
            exchanges: upToTheSwap(item: successorItem) + [
                (.replaced(true), .revoke(name: current)), (.revokeAnswered(.refused(refusal)), .deleteItem(inUse)),
                (.stepDone, .forgetStaleName(current)), (.stepDone, ended(rotatedTo: successor, predecessorRevoked: true)),
            ],
            writes: 2),
        Case(
            name: "a predecessor the server no longer knows (404) counts as revoked", facts: facts(expiresIn: day),
            first: .recordSuccessor(name: successor, keyringItem: nil, at: now),
            exchanges: upToTheSwap() + [
                (.replaced(true), .revoke(name: current)), (.revokeAnswered(.unknownName), .forgetStaleName(current)),
                (.stepDone, ended(rotatedTo: successor, predecessorRevoked: true)),
            ],
            writes: 2),
        Case(
            name: "a predecessor's revocation that fails leaves the rotation made and the predecessor stale, its expiry unknown to the list",
            facts: facts(expiresIn: day), first: .recordSuccessor(name: successor, keyringItem: nil, at: now),
            exchanges: upToTheSwap(expiry: nil) + [
                (.replaced(true), .revoke(name: current)), (.revokeAnswered(.failed(down)), ended(rotatedTo: successor, failure: .server(down))),
            ],
            writes: 1),
        Case(
            name: "a swap the database refuses discards the successor and reports no rotation", facts: facts(expiresIn: day),
            first: .recordSuccessor(name: successor, keyringItem: nil, at: now),
            exchanges: upToTheSwap(expiry: nil) + [(.replaced(false), .discard(token, name: successor, keyringItem: nil)), (.stepDone, ended())],
            writes: 1),
        Case(
            name: "a swap the database refuses for a token the keyring holds discards the successor with its own item",
            facts: facts(expiresIn: day, item: inUse), first: .recordSuccessor(name: successor, keyringItem: successorItem, at: now),
            exchanges: upToTheSwap(item: successorItem) + [
                (.replaced(false), .discard(token, name: successor, keyringItem: successorItem)), (.stepDone, ended()),
            ],
            writes: 1),
        Case(
            name: "a swap that fails leaves the successor's name stale for a later run to revoke", facts: facts(expiresIn: day),
            first: .recordSuccessor(name: successor, keyringItem: nil, at: now),
            exchanges: upToTheSwap() + [(.failed(.other(storeDown)), ended(failure: storeDown))], writes: 1),
        Case(
            name: "a successor's name the store does not record is never minted", facts: facts(expiresIn: day),
            first: .recordSuccessor(name: successor, keyringItem: nil, at: now), exchanges: [(.failed(.other(storeDown)), ended(failure: storeDown))],
            writes: 0),
        Case(
            name: "a refused mint ends the renewal as refused", facts: facts(expiresIn: day),
            first: .recordSuccessor(name: successor, keyringItem: nil, at: now),
            exchanges: [(.stepDone, .mint(name: successor, ttl: "90d")), (.failed(.refused(refusal)), ended(refused: refusal))], writes: 0),
        Case(
            name: "a mint that fails ends the renewal with its failure", facts: facts(expiresIn: day),
            first: .recordSuccessor(name: successor, keyringItem: nil, at: now),
            exchanges: [(.stepDone, .mint(name: successor, ttl: "90d")), (.failed(.other(.server(down))), ended(failure: .server(down)))], writes: 0),
        Case(
            name: "a keyring that does not take the successor leaves the token in use, and the renewal waits for the keyring",
            facts: facts(expiresIn: day, item: inUse), first: .recordSuccessor(name: successor, keyringItem: successorItem, at: now),
            exchanges: [
                (.stepDone, .mint(name: successor, ttl: "90d")), (.minted(token), .storeInKeyring(token, item: successorItem)),
                (.failed(.keyring(.locked)), ended(waitingFor: .locked)),
            ],
            writes: 1),
        Case(
            name: "a predecessor's item the keyring does not let go of leaves the rotation made and revoked, waiting for the keyring",
            facts: facts(expiresIn: day, item: inUse), first: .recordSuccessor(name: successor, keyringItem: successorItem, at: now),
            exchanges: upToTheSwap(item: successorItem) + [
                (.replaced(true), .revoke(name: current)), (.revokeAnswered(.revoked), .deleteItem(inUse)),
                (.failed(.keyring(.locked)), ended(rotatedTo: successor, predecessorRevoked: true, waitingFor: .locked)),
            ],
            writes: 2),
        Case(
            name: "a predecessor's name the store does not forget leaves the rotation made and revoked", facts: facts(expiresIn: day),
            first: .recordSuccessor(name: successor, keyringItem: nil, at: now),
            exchanges: upToTheSwap() + [
                (.replaced(true), .revoke(name: current)), (.revokeAnswered(.revoked), .forgetStaleName(current)),
                (.failed(.other(storeDown)), ended(rotatedTo: successor, predecessorRevoked: true, failure: storeDown)),
            ],
            writes: 2),
    ]
}
