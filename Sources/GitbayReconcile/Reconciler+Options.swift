import GitbayAPI
import GitbayKeyring
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Reconciler {
    package struct Options: Sendable {
        /// How many accounts are in flight at once in all: a bound on the process, not on any
        /// one server.
        package var concurrency: Int
        /// How many accounts of a plain `http` instance (a loopback one) are in flight at once:
        /// one connection each, polite to one server.
        package var perInstance: Int
        /// How many accounts of an `https` instance are in flight at once. Where the instance
        /// offers HTTP/2 their requests are streams of one connection; over HTTP/1.1 they take
        /// turns on the few connections the pool opens to one instance
        /// (`ConnectionPool.defaultConnectionsPerInstance`).
        package var perTLSInstance: Int
        /// Skip accounts whose next retry is still ahead: every `run` does, unless `--now`;
        /// a command acting on one account at a person's word (`login`, `pause`, …) does not.
        package var honourBackoff: Bool
        /// The longest wait before retrying a failed account.
        package var backoffCeiling: Duration
        package var client: ClientConfiguration
        package var now: @Sendable () -> Date
        /// Asked before each further account starts; false (a stop was requested)
        /// leaves the rest for the next run.
        package var mayStartMore: @Sendable () -> Bool
        /// Returns when the run should end at once (nil: never): the passes in flight are
        /// cancelled, recording nothing (`AccountOutcome.stopped`), and so is any started after
        /// (`mayStartMore` false starts none); the passes that ended before are recorded as usual.
        package var stopNow: (@Sendable () async -> Void)?
        /// Told as each account's pass starts and ends (nil: nobody listens).
        package var progress: Listener?
        /// The accounts being signed out, whose removal the first round finishes after their
        /// pass (nil: none).
        package var removals: RunRemovals?
        /// The accounts whose API token the first round renews after their pass, and the
        /// install marker (nil: none).
        package var renewing: (accounts: Set<Int64>, marker: String)?
        /// Who takes the accounts' leases: one command of this process.
        package var leaseHolder: LeaseHolder
        /// The OS keyring, for the tokens kept there; nil keeps every new token in the database.
        package var keyring: (any TokenKeyring)?
        /// The run this is, for the run history (`status --history`); nil records none.
        /// `SyncEngine.run` writes the row, in the steady verdicts' transaction when it can.
        package var history: RunHistoryRecord.Start?

        package typealias Listener = @Sendable (Progress) -> Void

        /// What `progress` is told.
        package enum Progress: Sendable {
            /// The run read every account, in sign-in order: told once, by its first round,
            /// before anything else.
            case read([AccountRecord])
            /// The account's pass started: its first request is on its way.
            case started(AccountRecord)
            /// The account's pass ended (or it was left alone), with its outcome before the
            /// round records the verdicts of the steady ones together.
            case finished(AccountOutcome)
        }

        /// The default of `concurrency`.
        package static let defaultConcurrency = 256
        /// The default of `perInstance`: as many as the connections the agent's transport opens
        /// to one instance (`GitbayCurl.ConnectionPool.defaultConnectionsPerInstance`).
        package static let defaultPerInstance = 8
        /// The default of `perTLSInstance`.
        package static let defaultPerTLSInstance = 64

        package init(
            concurrency: Int = defaultConcurrency, perInstance: Int = defaultPerInstance, perTLSInstance: Int = defaultPerTLSInstance,
            honourBackoff: Bool = false,
            backoffCeiling: Duration = FailurePolicy.defaultCeiling,
            client: ClientConfiguration, now: @escaping @Sendable () -> Date = { Date() },
            mayStartMore: @escaping @Sendable () -> Bool = { true }, leaseHolder: LeaseHolder = .new(), keyring: (any TokenKeyring)? = nil
        ) {
            self.concurrency = concurrency
            self.perInstance = perInstance
            self.perTLSInstance = perTLSInstance
            self.honourBackoff = honourBackoff
            self.backoffCeiling = backoffCeiling
            self.client = client
            self.now = now
            self.mayStartMore = mayStartMore
            self.leaseHolder = leaseHolder
            self.keyring = keyring
        }

        /// How many accounts of `instance` may be in flight at once.
        package func bound(for instance: InstanceURL) -> Int {
            instance.scheme == "https" ? perTLSInstance : perInstance
        }
    }
}
