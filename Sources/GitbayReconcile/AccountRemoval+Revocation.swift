import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AccountRemoval {
    /// What `body` returns, with its task cancelled (and so the requests it awaits) when the
    /// run's `stopNow` returns first.
    func cancelledAtStop<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Value {
        guard let stopNow = reconciler.options.stopNow else { return await body() }
        let work = Task { await body() }
        let watcher = Task {
            await stopNow()
            guard !Task.isCancelled else { return }
            work.cancel()
        }
        defer { watcher.cancel() }
        return await withTaskCancellationHandler {
            await work.value
        } onCancel: {
            work.cancel()
        }
    }

    /// How `whoami` with the token whose name was just revoked answered.
    static func checked(_ result: Swift.Result<WhoAmI, GitbayError>, name: String, logger: Logger) -> RevocationMachine.CheckAnswer {
        switch result {
        case .success:
            logger.info("removal.token-still-valid", ["token.name": name])
            return .accepted
        case .failure(let error) where error.kind == .authFailed:
            return .refused
        case .failure(let error):
            logger.info("removal.revoke-unchecked", ["token.name": name, "error": "\(error)"])
            return .failed(error)
        }
    }
}
