import GitbayAPI
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CommandRunner {
    /// The account's whole device list (an unconditional read, so never `304`).
    static func fullList(_ client: GitbayClient) async throws(GitbayError) -> [ServerDevice] {
        switch try await client.listDevices(ifNoneMatch: nil) {
        case .list(let rows, _): rows
        case .notModified: preconditionFailure("an unconditional list answered 304; the client turns that into an error")
        }
    }

    /// Concurrent per-account calls with this command's client settings.
    func fanOut(_ store: StateStore) -> AccountFanOut {
        AccountFanOut(store: store, tokens: tokens(store), configuration: context.client, logger: logger)
    }
}
