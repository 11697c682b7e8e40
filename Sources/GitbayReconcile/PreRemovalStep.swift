import GitbayState
import GitbaySupport

/// What runs between an account's deregistration and the deletion of its token: in the agent,
/// the user's pre-remove hook; in an app, whatever it must do first (clear its own Keychain
/// item, say). Throwing keeps the account `removing` with its token, and the next removal or
/// run tries again; throwing a `PreRemovalInterruption` says a stop request cut it short.
package protocol PreRemovalStep: Sendable {
    func run(for account: AccountRecord, shutdown: ShutdownSignal) async throws
}

/// A pre-removal step that did not finish because the process was asked to stop: the removal
/// is left to a later run, and `--force` does not override it.
package protocol PreRemovalInterruption: Error {}

/// No step: the removal goes from the deregistration straight to the deletion.
package struct NoPreRemovalStep: PreRemovalStep {
    package init() {}
    package func run(for account: AccountRecord, shutdown: ShutdownSignal) async throws {}
}
