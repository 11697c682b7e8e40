import FoundationEssentials

/// What the user wants for an account.
public enum AccountState: String, Sendable, CaseIterable {
    /// Signed in: this device should be registered.
    case active
    /// Signed in, but the user asked for no pushes: this device should not be registered.
    case paused
    /// Being signed out: the device is deregistered, then the token and records are deleted.
    case removing
}

/// A signed-in account as stored.
public struct AccountRecord: Sendable, Equatable, Identifiable {
    public let id: Int64
    public let instance: InstanceURL
    public let username: String
    /// `user@host[:port]`, the name the CLI uses.
    public let name: String
    public let state: AccountState
    public let signedInAt: Date

    /// The CLI's name for an account.
    public static func name(username: String, instance: InstanceURL) -> String {
        "\(username)@\(instance.authority)"
    }
}

/// A token this device held before the current one.
public struct RetiredToken: Sendable, Equatable {
    public let generation: Int
    /// Its first 8 bytes, as `device show` prints them.
    public let prefix: String
    /// What is known of it; only its first 8 bytes for a token retired by an earlier version.
    public let token: TokenIdentity
    public let retiredAt: Date
}

/// This device as stored.
public struct DeviceRecord: Sendable, Equatable {
    /// The current push token, if one is set.
    public let token: Secret?
    /// Bumped with every new token.
    public let generation: Int
    public let label: String
    /// Short random text that marks this install's rows on the server.
    public let installMarker: String
    public let tokenSetAt: Date?
    public let history: [RetiredToken]

    /// The label as sent to servers: the user's label and the install marker.
    public var serverLabel: String { "\(label) [\(installMarker)]" }
}

/// A server device row this device made or adopted for an account, and the token it holds.
public struct RegistrationRecord: Sendable, Equatable {
    public let accountID: Int64
    public let deviceID: Int
    /// The row's `added` time as listed: with the id it names one row over time (ids are
    /// reused, `added` never changes). Nil until the row has been seen in a list.
    public let added: String?
    /// The token the row holds; without a fingerprint for a record kept by an earlier version.
    public let token: TokenIdentity
    /// The device token generation current when the row was recorded.
    public let generation: Int
    public let madeAt: Date

    public init(accountID: Int64, deviceID: Int, added: String?, token: TokenIdentity, generation: Int, madeAt: Date) {
        self.accountID = accountID
        self.deviceID = deviceID
        self.added = added
        self.token = token
        self.generation = generation
        self.madeAt = madeAt
    }
}

/// What is known of an instance.
public struct InstanceRecord: Sendable, Equatable {
    public let instance: InstanceURL
    /// The account the user chose to hold this device's token on the instance.
    public let preferredAccountID: Int64?
}

/// The outcome of an account's latest reconcile.
public struct AccountStatusRecord: Sendable, Equatable {
    public var condition: AccountCondition
    public var detail: String?
    public var lastAttemptAt: Date?
    public var lastSuccessAt: Date?
    public var lastError: String?
    public var nextRetryAt: Date?
    /// Why the account waits until `nextRetryAt`.
    public var nextRetryReason: RetryReason?
    public var failures: Int
    public var listETag: String?
    public var etagBasis: String?

    public init(
        condition: AccountCondition = .pending, detail: String? = nil, lastAttemptAt: Date? = nil,
        lastSuccessAt: Date? = nil, lastError: String? = nil, nextRetryAt: Date? = nil, nextRetryReason: RetryReason? = nil,
        failures: Int = 0, listETag: String? = nil, etagBasis: String? = nil
    ) {
        self.condition = condition
        self.detail = detail
        self.lastAttemptAt = lastAttemptAt
        self.lastSuccessAt = lastSuccessAt
        self.lastError = lastError
        self.nextRetryAt = nextRetryAt
        self.nextRetryReason = nextRetryReason
        self.failures = failures
        self.listETag = listETag
        self.etagBasis = etagBasis
    }
}

/// Why a failed account waits before its next attempt.
public enum RetryReason: String, Sendable, CaseIterable {
    /// An ordinary failure: one minute, doubling per failure in a row, capped.
    case backoff
    /// The server asked for the wait (`Retry-After` on a 429 or 503).
    case retryAfter = "retry-after"
    /// The server's per-account write limit named the wait.
    case writeLimit = "write-limit"
    /// The token may not register devices: retried rarely.
    case denied
    /// The instance sends no pushes: retried rarely.
    case pushDisabled = "push-disabled"

    /// Why, in words, for `status` and `run`.
    public var explanation: String {
        switch self {
        case .backoff: "backing off after failures in a row"
        case .retryAfter: "the server asked to wait (Retry-After)"
        case .writeLimit: "the server's write limit named the wait"
        case .denied: "the token may not register devices; retried rarely"
        case .pushDisabled: "the instance sends no pushes; retried rarely"
        }
    }
}

/// The latest run nobody typed: the installed service's `run --unattended`, or a cycle of
/// `run --every`.
public struct UnattendedRunRecord: Sendable, Equatable {
    public enum Trigger: String, Sendable, CaseIterable {
        /// `run --unattended`, as the units `service install` writes call it.
        case service
        /// A cycle of `run --every`.
        case every
    }

    public enum Result: String, Sendable {
        /// No account failed (some may wait out a backoff).
        case ok
        /// One or more accounts failed.
        case failed
        /// A signal stopped the run before it finished.
        case interrupted
    }

    public let trigger: Trigger
    public let startedAt: Date
    public let finishedAt: Date
    public let result: Result
    /// How many accounts the run looked at.
    public let accounts: Int
    /// The accounts that failed, in sign-in order.
    public let failedAccounts: [String]
    /// How many accounts were left waiting out a backoff.
    public let waiting: Int
    /// The period of `run --every`; nil for the service.
    public let period: Duration?
    public let pid: Int32

    public init(
        trigger: Trigger, startedAt: Date, finishedAt: Date, result: Result, accounts: Int, failedAccounts: [String],
        waiting: Int, period: Duration?, pid: Int32
    ) {
        self.trigger = trigger
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.result = result
        self.accounts = accounts
        self.failedAccounts = failedAccounts
        self.waiting = waiting
        self.period = period
        self.pid = pid
    }
}

/// An account's condition as `status` shows it.
public enum AccountCondition: String, Sendable, CaseIterable {
    /// Never reconciled yet.
    case pending
    /// This device holds a row for the account with the current token.
    case registered
    /// Another account of the same instance holds the token (the server allows one).
    case shadowed
    case paused
    case removing
    /// The API token is no longer valid: sign in again.
    case authFailed = "auth-failed"
    /// The token may not register devices (read-only, or the account is disabled).
    case denied
    /// The instance does not send push notifications.
    case pushDisabled = "push-disabled"
    /// A failure that a later run may get past.
    case error
    /// No device token is set, so there is nothing to register.
    case noDeviceToken = "no-device-token"

    /// A condition that waits for a person, not for time: a new API token (`auth-failed`), a
    /// full-scope one or an enabled account (`denied`), an instance that sends pushes
    /// (`push-disabled`). A transient `error` passes on its own, once its backoff is over.
    public var needsAttention: Bool {
        switch self {
        case .authFailed, .denied, .pushDisabled: true
        case .error, .pending, .registered, .shadowed, .paused, .removing, .noDeviceToken: false
        }
    }
}
