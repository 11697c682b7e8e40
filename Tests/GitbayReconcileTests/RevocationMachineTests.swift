import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile

/// The removal's revocation machine: a table over every (state, answer) pair it accepts, and
/// random legal answers with invariants after each. `GITBAY_SYNC_PASS_SEED` replays a seed.
@Suite("Revocation machine")
struct RevocationMachineTests {
    typealias Effect = RevocationMachine.Effect

    /// One answer handed in, by the kind of request in flight.
    enum Answer: Sendable, CustomStringConvertible {
        case revoke(RevocationMachine.RevokeAnswer)
        case check(RevocationMachine.CheckAnswer)

        var description: String {
            switch self {
            case .revoke(let answer): "revoke \(answer)"
            case .check(let answer): "check \(answer)"
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let current: String?
        let stale: [String]
        /// The answers, each followed by the effect it must lead to; the first effect is `start()`'s.
        let first: Effect
        let exchanges: [(Answer, Effect)]
        let writes: Int

        var testDescription: String { name }
    }

    static let down = GitbayError(kind: .transport(.timedOut(.request, limit: .seconds(30))), account: "alice", command: ["token", "revoke"])

    static let refusal = GitbayError(kind: .authFailed, account: "alice", command: ["token", "revoke"])

    static func done(_ revocation: TokenRevocation) -> Effect { .finish(.success(revocation)) }
    static func failed(_ name: String, staleLeft: [String] = []) -> Effect {
        .finish(.failure(RevocationMachine.Failure(name: name, failure: .server(down), staleLeft: staleLeft)))
    }

    static let table: [Case] = [
        Case(name: "nothing to revoke: an unnamed token", current: nil, stale: [], first: done(.unnamed), exchanges: [], writes: 0),
        Case(
            name: "the current token revoked, then refused: revoked", current: "cur", stale: [], first: .revoke(name: "cur"),
            exchanges: [(.revoke(.revoked), .checkToken(name: "cur")), (.check(.refused), done(.revoked(name: "cur")))], writes: 1),
        Case(
            name: "a name the server does not know, and the token still works", current: "cur", stale: ["cur"], first: .revoke(name: "cur"),
            exchanges: [
                (.revoke(.unknownName), .checkToken(name: "cur")),
                (.check(.accepted), done(TokenRevocation(.stillValid(name: "cur", nameKnown: false)))),
            ], writes: 1),
        Case(
            name: "revoked by name, and the token still works: the name was another's", current: "cur", stale: [], first: .revoke(name: "cur"),
            exchanges: [
                (.revoke(.revoked), .checkToken(name: "cur")), (.check(.accepted), done(TokenRevocation(.stillValid(name: "cur", nameKnown: true)))),
            ], writes: 1),
        Case(
            name: "the check fails: not known to be revoked", current: "cur", stale: [], first: .revoke(name: "cur"),
            exchanges: [(.revoke(.revoked), .checkToken(name: "cur")), (.check(.failed(down)), failed("cur"))], writes: 1),
        Case(
            name: "the current token refused at its revocation", current: "cur", stale: [], first: .revoke(name: "cur"),
            exchanges: [(.revoke(.refused(refusal)), done(TokenRevocation(.refused(name: "cur"))))], writes: 0),
        Case(
            name: "the current token's revocation fails", current: "cur", stale: [], first: .revoke(name: "cur"),
            exchanges: [(.revoke(.failed(down)), failed("cur"))], writes: 0),
        Case(
            name: "stale names first, one unknown, then the current one", current: "cur", stale: ["s1", "s2"], first: .revoke(name: "s1"),
            exchanges: [
                (.revoke(.revoked), .revoke(name: "s2")), (.revoke(.unknownName), .revoke(name: "cur")),
                (.revoke(.revoked), .checkToken(name: "cur")), (.check(.refused), done(.revoked(name: "cur"))),
            ], writes: 3),
        Case(
            name: "an unnamed current token still has its stale names revoked", current: nil, stale: ["s1"], first: .revoke(name: "s1"),
            exchanges: [(.revoke(.revoked), done(.unnamed))], writes: 1),
        Case(
            name: "refused midway: the stale names not yet revoked are left", current: "cur", stale: ["s1", "s2", "s3"],
            first: .revoke(name: "s1"),
            exchanges: [
                (.revoke(.revoked), .revoke(name: "s2")),
                (.revoke(.refused(refusal)), done(TokenRevocation(.refused(name: "cur"), staleLeft: ["s2", "s3"]))),
            ],
            writes: 1),
        Case(
            name: "a refused unnamed token leaves its stale names", current: nil, stale: ["s1"], first: .revoke(name: "s1"),
            exchanges: [(.revoke(.refused(refusal)), done(TokenRevocation(.refused(name: nil), staleLeft: ["s1"])))], writes: 0),
        Case(
            name: "a stale name's revocation fails: it is the one named", current: "cur", stale: ["s1", "s2"], first: .revoke(name: "s1"),
            exchanges: [(.revoke(.revoked), .revoke(name: "s2")), (.revoke(.failed(down)), failed("s2", staleLeft: ["s2"]))], writes: 1),
    ]

    @Test("every (state, answer) pair", arguments: table)
    func transcript(_ row: Case) {
        var machine = RevocationMachine(current: row.current, staleNames: row.stale)
        #expect(machine.start() == row.first)
        for (answer, expected) in row.exchanges {
            #expect(!machine.isFinished, "answered after the end: \(answer)")
            #expect(Self.hand(answer, to: &machine) == expected, "after \(answer)")
        }
        #expect(machine.isFinished)
        #expect(machine.writes == row.writes)
    }

    @Test("the table feeds every pair the machine accepts")
    func everyPairTabled() {
        var fed: Set<String> = []
        for row in Self.table {
            var state = row.stale.contains(where: { $0 != row.current }) ? "stale" : "current"
            for (answer, effect) in row.exchanges {
                fed.insert("\(state) \(Self.kind(answer))")
                if case .revoke(let name) = effect { state = name == row.current ? "current" : "stale" }
                if case .checkToken = effect { state = "checking" }
            }
        }
        let answers = ["revoke revoked", "revoke unknownName", "revoke refused", "revoke failed"]
        let accepted = Set(["stale", "current"].flatMap { state in answers.map { "\(state) \($0)" } })
            .union(["checking check accepted", "checking check refused", "checking check failed"])
        #expect(fed == accepted, "never fed: \(accepted.subtracting(fed).sorted())")
    }

    @Test("random legal answers: each name is sent once, the current one last, and a revocation is checked before it is called revoked")
    func randomAnswers() {
        var random = SplitMix64(seed: SplitMix64.seed(from: "GITBAY_SYNC_PASS_SEED"))
        cases: for _ in 0..<2000 {
            let stale = ["s1", "s2", "s3", "cur"].filter { _ in Bool.random(using: &random) }
            let current = Bool.random(using: &random) ? "cur" : nil
            var machine = RevocationMachine(current: current, staleNames: stale)
            var (sent, checked, answered) = ([String](), false, 0)
            var effect = machine.start()
            while true {
                switch effect {
                case .revoke(let name):
                    #expect(!sent.contains(name) && !checked, "\(name) sent twice, or after the check")
                    #expect(sent.last != current || current == nil, "a revocation after the current token's")
                    sent.append(name)
                    let answer = [RevocationMachine.RevokeAnswer.revoked, .unknownName, .refused(Self.refusal), .failed(Self.down)].randomElement(
                        using: &random)!
                    if answer == .revoked || answer == .unknownName { answered += 1 }
                    effect = machine.revokeAnswered(answer)
                case .checkToken(let name):
                    #expect(name == current && sent.last == current && !checked)
                    checked = true
                    effect = machine.tokenChecked([.accepted, .refused, .failed(Self.down)].randomElement(using: &random)!)
                case .finish(let result):
                    #expect(machine.isFinished && machine.writes == answered)
                    if case .success(let revocation) = result {
                        if case .revoked = revocation.current { #expect(checked) }
                        #expect(Set(revocation.staleLeft).isDisjoint(with: sent.dropLast()))
                        #expect(revocation.name == current)
                    }
                    check(sent: sent, stale: stale, current: current)
                    continue cases
                }
            }
        }
    }

    /// Stale names are sent in order, before the current one, never the current one as stale.
    private func check(sent: [String], stale: [String], current: String?) {
        let order = stale.filter { $0 != current } + (current.map { [$0] } ?? [])
        #expect(Array(order.prefix(sent.count)) == sent)
    }

    static func hand(_ answer: Answer, to machine: inout RevocationMachine) -> Effect {
        switch answer {
        case .revoke(let answer): machine.revokeAnswered(answer)
        case .check(let answer): machine.tokenChecked(answer)
        }
    }

    static func kind(_ answer: Answer) -> String {
        String(answer.description.split(separator: "(")[0])
    }
}
