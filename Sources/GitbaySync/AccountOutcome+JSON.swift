import GitbayReconcile

extension AccountOutcome {
    /// The account's object in `--json` output.
    var json: JSONValue {
        .object([
            ("account", .string(account)),
            ("action", .string(action.rawValue)),
            ("condition", .string(condition.rawValue)),
            ("device_id", .optional(deviceID)),
            ("requests", .int(requests)),
            ("writes", .int(writes)),
            ("shadowed_by", .optional(shadowedBy)),
            ("error", .optional(error)),
            ("reason", .optional(reason)),
            ("next_retry_at", .optional(nextRetryAt)),
            ("next_retry_reason", .optional(nextRetryReason?.rawValue)),
            ("token_rotated_to", .optional(tokenRenewal?.successor)),
            ("stale_tokens_revoked", .array((tokenRenewal?.revoked ?? []).map(JSONValue.string))),
            ("token_moved_to_keyring", .bool(tokenMove.map { if case .moved = $0 { true } else { false } } ?? false)),
        ])
    }
}
