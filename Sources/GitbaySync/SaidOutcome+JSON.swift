import GitbayReconcile
import GitbaySupport

extension SaidOutcome {
    /// The account's object in `--json` output.
    var json: JSONValue {
        var tree = JSONObjectTree()
        describe(into: &tree)
        return tree.value
    }

    /// The account's object, member by member.
    func describe(into object: inout some JSONMembers & ~Copyable) {
        object.member("account", outcome.account)
        object.member("action", outcome.action.rawValue)
        object.member("condition", outcome.condition.rawValue)
        object.member("device_id", outcome.deviceID)
        object.member("requests", outcome.requests)
        object.member("writes", outcome.writes)
        object.member("shadowed_by", outcome.shadowedBy)
        object.member("error", error)
        object.member("reason", reason)
        object.member("unchecked", outcome.unchecked?.rawValue)
        object.member("next_retry_at", outcome.nextRetryAt.map(Timestamp.format))
        object.member("next_retry_reason", outcome.nextRetryReason?.rawValue)
        object.member("token_rotated_to", outcome.tokenRenewal?.successor)
        object.member("stale_tokens_revoked", outcome.tokenRenewal?.revoked ?? [])
        object.member("token_moved_to_keyring", outcome.tokenMove.map { if case .moved = $0 { true } else { false } } ?? false)
    }
}
