import GitbayReconcile

/// An account's outcome as the command line says it: the core's values, and the words this
/// interface adds (why it was left alone, and what failed with the command that fixes it).
/// The outcome's fields read and write through it.
@dynamicMemberLookup
struct SaidOutcome: Sendable, Equatable {
    var outcome: AccountOutcome
    /// Why it was left alone, or what else there is to say of it.
    var reason: String?
    /// What failed, in the command line's words; nil when nothing did.
    var error: String?

    /// `outcome` with the core's own words for what failed, until the command line words it.
    init(_ outcome: AccountOutcome) {
        self.outcome = outcome
        error = outcome.failure.map(FailureText.said)
    }

    subscript<Value>(dynamicMember path: KeyPath<AccountOutcome, Value>) -> Value {
        outcome[keyPath: path]
    }

    subscript<Value>(dynamicMember path: WritableKeyPath<AccountOutcome, Value>) -> Value {
        get { outcome[keyPath: path] }
        set { outcome[keyPath: path] = newValue }
    }
}
