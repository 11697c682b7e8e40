import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the user wants for an account.
package enum AccountState: String, Sendable, CaseIterable {
    /// Signed in: this device should be registered.
    case active
    /// Signed in, but the user asked for no pushes: this device should not be registered.
    case paused
    /// Being signed out: the device is deregistered, then the token and records are deleted.
    case removing
}

/// A signed-in account as stored.
///
/// Its fields are held once on the heap: a run hands each account's record through a couple
/// of dozen copies (its pass, its outcome, the schedule, the sorting), and a copy then costs
/// one reference count instead of one per string.
package struct AccountRecord: Sendable, Equatable, Identifiable {
    private final class Fields: Sendable {
        let id: Int64
        let instance: InstanceURL
        let username: String
        let name: String
        let state: AccountState
        let signedInAt: Date
        let removalStartedAt: Date?
        let sshDestination: String?
        let pushOff: Bool

        init(
            id: Int64, instance: InstanceURL, username: String, name: String, state: AccountState, signedInAt: Date,
            removalStartedAt: Date?, sshDestination: String?, pushOff: Bool
        ) {
            (self.id, self.instance, self.username, self.name, self.state, self.signedInAt) = (id, instance, username, name, state, signedInAt)
            (self.removalStartedAt, self.sshDestination, self.pushOff) = (removalStartedAt, sshDestination, pushOff)
        }
    }

    private let fields: Fields

    package var id: Int64 { fields.id }
    package var instance: InstanceURL { fields.instance }
    package var username: String { fields.username }
    /// `user@host[:port]`, the name the CLI uses.
    package var name: String { fields.name }
    package var state: AccountState { fields.state }
    package var signedInAt: Date { fields.signedInAt }
    /// When its current removal began; nil unless it is `removing` (and for a removal begun
    /// by an earlier version). The deletion that ends a removal checks it is still this one.
    package var removalStartedAt: Date? { fields.removalStartedAt }
    /// Where its server serves SSH, as `login --ssh` was given it (`user@host[:port]`); nil
    /// when never given.
    package var sshDestination: String? { fields.sshDestination }
    /// Whether its push switch was last set off from here (`push off`): a choice, not a failure.
    package var pushOff: Bool { fields.pushOff }

    package init(
        id: Int64, instance: InstanceURL, username: String, name: String, state: AccountState, signedInAt: Date,
        removalStartedAt: Date? = nil, sshDestination: String? = nil, pushOff: Bool = false
    ) {
        fields = Fields(
            id: id, instance: instance, username: username, name: name, state: state, signedInAt: signedInAt,
            removalStartedAt: removalStartedAt, sshDestination: sshDestination, pushOff: pushOff)
    }

    package static func == (lhs: AccountRecord, rhs: AccountRecord) -> Bool {
        let (left, right) = (lhs.fields, rhs.fields)
        return left === right
            || (left.id == right.id && left.instance == right.instance && left.username == right.username && left.name == right.name
                && left.state == right.state && left.signedInAt == right.signedInAt && left.removalStartedAt == right.removalStartedAt
                && left.sshDestination == right.sshDestination && left.pushOff == right.pushOff)
    }

    /// The CLI's name for an account.
    package static func name(username: String, instance: InstanceURL) -> String {
        "\(username)@\(instance.authority)"
    }
}

/// A token this device held before the current one.
package struct RetiredToken: Sendable, Equatable {
    package let generation: Int
    /// Its first 8 bytes, as `device show` prints them.
    package let prefix: String
    /// What is known of it; only its first 8 bytes for a token retired by an earlier version.
    package let token: TokenIdentity
    package let retiredAt: Date
}

/// A server device row this device made or adopted for an account, and the token it holds.
package struct RegistrationRecord: Sendable, Equatable {
    package let accountID: Int64
    package let deviceID: Int
    /// The row's `added` time as listed: with the id it names one row over time (ids are
    /// reused, `added` never changes). Nil until the row has been seen in a list.
    package let added: String?
    /// The token the row holds; without a fingerprint for a record kept by an earlier version.
    package let token: TokenIdentity
    /// The device token generation current when the row was recorded.
    package let generation: Int
    package let madeAt: Date

    package init(accountID: Int64, deviceID: Int, added: String?, token: TokenIdentity, generation: Int, madeAt: Date) {
        self.accountID = accountID
        self.deviceID = deviceID
        self.added = added
        self.token = token
        self.generation = generation
        self.madeAt = madeAt
    }
}

/// What is known of an instance.
package struct InstanceRecord: Sendable, Equatable {
    package let instance: InstanceURL
    /// The account the user chose to hold this device's token on the instance.
    package let preferredAccountID: Int64?
}

/// Why a failed account waits before its next attempt.
package enum RetryReason: String, Sendable, CaseIterable {
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
    package var explanation: String {
        switch self {
        case .backoff: "backing off after failures in a row"
        case .retryAfter: "the server asked to wait (Retry-After)"
        case .writeLimit: "the server's write limit named the wait"
        case .denied: "the token may not register devices; retried rarely"
        case .pushDisabled: "the instance sends no pushes; retried rarely"
        }
    }
}

/// An account's condition as `status` shows it.
package enum AccountCondition: String, Sendable, CaseIterable {
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
    package var needsAttention: Bool {
        switch self {
        case .authFailed, .denied, .pushDisabled: true
        case .error, .pending, .registered, .shadowed, .paused, .removing, .noDeviceToken: false
        }
    }
}
