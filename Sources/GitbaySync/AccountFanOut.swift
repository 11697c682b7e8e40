import FoundationEssentials
import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

/// Runs one call per account concurrently (bounded), each through the account's own client.
///
/// One account's failure is kept as that account's result and never cancels or delays the
/// others past their own timeouts.
struct AccountFanOut: Sendable {
    let store: StateStore
    let configuration: ClientConfiguration
    let logger: Logger
    /// How many accounts are asked at once.
    var width = 8

    /// One account's answer, or why it has none.
    struct Answer<Value: Sendable>: Sendable {
        let account: AccountRecord
        let outcome: Result<Value, any Error>
    }

    /// Calls `body` for every account, in the accounts' order in the results.
    func run<Value: Sendable>(
        _ accounts: [AccountRecord], _ body: @escaping @Sendable (GitbayClient) async throws -> Value
    ) async -> [Answer<Value>] {
        var results: [Int: Answer<Value>] = [:]
        await withTaskGroup(of: (Int, Answer<Value>).self) { group in
            var pending = Array(accounts.enumerated())[...]
            func start(_ next: (offset: Int, element: AccountRecord)) {
                group.addTask { (next.offset, await call(next.element, body)) }
            }
            for _ in 0..<min(max(1, width), pending.count) {
                start(pending.removeFirst())
            }
            for await (index, result) in group {
                results[index] = result
                if let next = pending.popFirst() { start(next) }
            }
        }
        return accounts.indices.compactMap { results[$0] }
    }

    private func call<Value: Sendable>(
        _ account: AccountRecord, _ body: @Sendable (GitbayClient) async throws -> Value
    ) async -> Answer<Value> {
        do {
            let client = try await GitbayClient.forAccount(account, in: store, configuration: configuration, logger: logger)
            return Answer(account: account, outcome: .success(try await body(client)))
        } catch {
            return Answer(account: account, outcome: .failure(error))
        }
    }
}
