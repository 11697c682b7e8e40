import GitbayReconcile

extension SaidOutcome {
    /// The account's object in `--json` output.
    var json: JSONValue {
        .object([
            ("account", .string(outcome.account)),
            ("action", .string(outcome.action.rawValue)),
            ("condition", .string(outcome.condition.rawValue)),
            ("device_id", .optional(outcome.deviceID)),
            ("requests", .int(outcome.requests)),
            ("writes", .int(outcome.writes)),
            ("shadowed_by", .optional(outcome.shadowedBy)),
            ("error", .optional(error)),
            ("reason", .optional(reason)),
            ("unchecked", .optional(outcome.unchecked?.rawValue)),
            ("next_retry_at", .optional(outcome.nextRetryAt)),
            ("next_retry_reason", .optional(outcome.nextRetryReason?.rawValue)),
            ("token_rotated_to", .optional(outcome.tokenRenewal?.successor)),
            ("stale_tokens_revoked", .array((outcome.tokenRenewal?.revoked ?? []).map(JSONValue.string))),
            ("token_moved_to_keyring", .bool(outcome.tokenMove.map { if case .moved = $0 { true } else { false } } ?? false)),
        ])
    }
}
