import GitbayAPI
import GitbayKeyring
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs one call per account concurrently, each through the account's own client, bounded as a
/// run is: every instance at once, `Reconciler.Options.bound(for:)` accounts of one instance
/// and `Reconciler.Options.concurrency` in all at a time.
///
/// One account's failure is kept as that account's result and never cancels or delays the
/// others past their own timeouts.
struct AccountFanOut: Sendable {
    let store: StateStore
    /// Where the accounts' tokens are read, the keyring once for all of them.
    let tokens: APITokens
    let configuration: ClientConfiguration
    let logger: Logger
    /// The bounds: a run's defaults.
    var bounds: Reconciler.Options

    init(store: StateStore, tokens: APITokens, configuration: ClientConfiguration, logger: Logger) {
        self.store = store
        self.tokens = tokens
        self.configuration = configuration
        self.logger = logger
        bounds = Reconciler.Options(client: configuration)
    }

    /// One account's answer, or why it has none.
    struct Answer<Value: Sendable>: Sendable {
        let account: AccountRecord
        let outcome: Result<Value, any Error>
    }

    /// Calls `body` for every account, in the accounts' order in the results; `started` and
    /// `answered` are told as each account's call starts and as its answer lands.
    func run<Value: Sendable>(
        _ accounts: [AccountRecord], started: (@Sendable (AccountRecord) -> Void)? = nil, answered: (@Sendable (Answer<Value>) -> Void)? = nil,
        _ body: @escaping @Sendable (GitbayClient) async throws -> Value
    ) async -> [Answer<Value>] {
        let bounds = bounds
        let read: Result<[Int64: Result<Secret, KeyringUnavailable>], any Error>
        do {
            read = .success(try await tokens.tokens(of: accounts))
        } catch {
            read = .failure(error)
        }
        let answers = await RunQueue.perform(
            accounts.enumerated().map { ($1.instance, $0) }, overall: bounds.concurrency, perInstance: bounds.bound(for:)
        ) { index in
            started?(accounts[index])
            let answer = await call(accounts[index], read, body)
            answered?(answer)
            return (index, answer)
        }
        let results = Dictionary(answers, uniquingKeysWith: { first, _ in first })
        return accounts.indices.compactMap { results[$0] }
    }

    private func call<Value: Sendable>(
        _ account: AccountRecord, _ read: Result<[Int64: Result<Secret, KeyringUnavailable>], any Error>,
        _ body: @Sendable (GitbayClient) async throws -> Value
    ) async -> Answer<Value> {
        do {
            let token = try read.get()[account.id].map { try $0.get() }
            let client = try GitbayClient.forAccount(account, token: token, configuration: configuration, logger: logger)
            return Answer(account: account, outcome: .success(try await body(client)))
        } catch {
            return Answer(account: account, outcome: .failure(error))
        }
    }
}
