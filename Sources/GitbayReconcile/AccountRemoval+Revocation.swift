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
    func check(_ name: String, with client: GitbayClient) async -> RevocationMachine.CheckAnswer {
        do {
            _ = try await client.whoami()
            reconciler.logger.info("removal.token-still-valid", ["token.name": name])
            return .accepted
        } catch  where error.kind == .authFailed {
            return .refused
        } catch {
            reconciler.logger.info("removal.revoke-unchecked", ["token.name": name, "error": "\(error)"])
            return .failed(error)
        }
    }
}
