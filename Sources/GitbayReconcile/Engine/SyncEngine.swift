import GitbayAPI
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an agent or an app does with push registrations, over one store: each use case changes
/// what an account or the device wants, then reconciles what the change touches, and answers
/// with values. The words for them belong to the caller (the command line, an app's screens).
package struct SyncEngine: Sendable {
    package let store: StateStore
    package let options: Reconciler.Options
    package let logger: Logger
    /// What a removal runs once the device is deregistered and before the token is deleted.
    package let removalStep: any PreRemovalStep
    package let shutdown: ShutdownSignal

    package init(
        store: StateStore, options: Reconciler.Options, logger: Logger, removalStep: any PreRemovalStep = NoPreRemovalStep(),
        shutdown: ShutdownSignal = ShutdownSignal()
    ) {
        self.store = store
        self.options = options
        self.logger = logger
        self.removalStep = removalStep
        self.shutdown = shutdown
    }

    /// Why a use case did nothing.
    package enum Refusal: Error, Sendable, Equatable {
        /// The account is being signed out: it no longer counts as signed in.
        case beingSignedOut(AccountRecord)
    }

    package var reconciler: Reconciler { Reconciler(store: store, options: options, logger: logger) }

    /// The accounts' API tokens, in the database and the keyring of `options`.
    package var tokens: APITokens { APITokens(store: store, keyring: options.keyring) }

    package var removal: AccountRemoval { AccountRemoval(reconciler: reconciler, step: removalStep, shutdown: shutdown) }

    /// Reconciles every account of the server `instance` names, under any of its names: a
    /// change to one of them may move the device token to another. `activeOnly` leaves out
    /// the paused and the removing.
    package func reconcileServer(of instance: InstanceURL, activeOnly: Bool = false) async throws -> [AccountOutcome] {
        var accounts = try await store.accounts(onServerOf: instance).filter { !activeOnly || $0.state == .active }
        // A removal whose pre-removal step passed is deregistered already: only its token's
        // revocation and its deletion are left, which a run finishes (its token may be refused
        // by then, the revocation having gone through before a crash).
        for account in accounts where account.state == .removing {
            if try await store.removalStepPassed(ofAccount: account.id, removalStartedAt: account.removalStartedAt) {
                accounts.removeAll { $0.id == account.id }
            }
        }
        guard !accounts.isEmpty else { return [] }
        return try await reconciler.reconcile(only: Set(accounts.map(\.id)))
    }

    /// Pauses or resumes an account, then reconciles its server.
    package func setState(_ state: AccountState, of account: AccountRecord) async throws -> [AccountOutcome] {
        precondition(state != .removing, "a removal goes through removeAccount")
        guard account.state != .removing else { throw Refusal.beingSignedOut(account) }
        try await store.setState(state, ofAccount: account.id, now: options.now())
        return try await reconcileServer(of: account.instance)
    }

    /// Makes the account the holder of the device token on its server, then reconciles it.
    package func prefer(_ account: AccountRecord) async throws -> [AccountOutcome] {
        guard account.state != .removing else { throw Refusal.beingSignedOut(account) }
        try await store.prefer(accountID: account.id, on: account.instance, now: options.now())
        return try await reconcileServer(of: account.instance)
    }

    /// What setting the device token did.
    package struct TokenChange: Sendable, Equatable {
        package let device: DeviceRecord
        /// A token was set before, and this one differs.
        package let rotated: Bool
        /// The same token (and label) as before: nothing changed.
        package let unchanged: Bool
    }

    /// Stores the device's push token (a rotation when it differs); the next run brings every
    /// account in line, or `reconcile` does now.
    package func setDeviceToken(_ token: Secret, label: String?) async throws -> TokenChange {
        let before = try await store.device()
        let device = try await store.setDeviceToken(token, label: label, now: options.now())
        return TokenChange(
            device: device, rotated: before.token != nil && before.generation != device.generation, unchanged: before.generation == device.generation)
    }

    /// Forgets the device token and removes every row of it, account by account.
    package func clearDeviceToken() async throws -> [AccountOutcome] {
        try await store.clearDeviceToken(now: options.now())
        return try await reconciler.reconcile()
    }
}
