import Foundation
import ReconcileSupport

@testable import GitbayReconcile
@testable import GitbaySupport
@testable import GitbaySync

extension ReconcileWorld {
    /// The removal `remove-account` makes, with the user's hook at `hookPath` (none by default).
    func removal(
        hookPath: String?, hookTimeout: Duration = .seconds(5), stopGrace: Duration = PreRemovalHook.defaultStopGrace,
        shutdown: ShutdownSignal = ShutdownSignal(), now: @escaping @Sendable () -> Date = { Date() }
    ) -> AccountRemoval {
        removal(
            step: PreRemovalHook(
                path: hookPath ?? folder.path + "/no-hook", baseEnvironment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
                timeout: hookTimeout, stopGrace: stopGrace),
            shutdown: shutdown, now: now)
    }
}
