import Foundation
import Testing

@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

@Suite("run --json written as it is described")
struct RunJSONStreamTests {
    @Test("the text run --json writes without a tree is byte for byte the rendering of its JSON value, whatever each account's fields hold")
    func sameText() throws {
        let instance = try InstanceURL(parsing: "https://gitbay.test")
        var outcomes: [SaidOutcome] = []
        for index in 0..<24 {
            var outcome = AccountOutcome(
                accountID: Int64(index), account: index % 3 == 0 ? "evil\"\\\n\u{1B}\(index)@gitbay.test" : "user\(index)@gitbay.test",
                instance: instance, action: index % 2 == 0 ? .unchanged : .failed, condition: index % 4 == 0 ? .registered : .pending,
                deviceID: index % 5 == 0 ? nil : index * 7, requests: index, writes: index % 3, shadowedBy: index % 6 == 1 ? "bob@gitbay.test" : nil,
                nextRetryAt: index % 4 == 2 ? Date(timeIntervalSince1970: 1_800_000_000 + Double(index)) : nil,
                nextRetryReason: index % 4 == 2 ? .backoff : nil)
            if index % 5 == 3 {
                var renewal = TokenRenewal()
                (renewal.successor, renewal.revoked) = ("gitbay-sync-\(index)", ["old-\(index)", "older \"\(index)\""])
                outcome.tokenRenewal = renewal
            }
            if index % 7 == 4 { outcome.tokenMove = .moved(wiped: true) }
            var said = SaidOutcome(outcome)
            (said.reason, said.error) = (index % 3 == 1 ? "why \(index)" : nil, index % 2 == 1 ? "failed: \u{7}\(index)" : nil)
            outcomes.append(said)
        }
        for count in [0, 1, 24] {
            let output = RunOutput(outcomes: Array(outcomes.prefix(count)), text: [])
            #expect(output.renderedJSON == output.json.rendered())
        }
    }
}
