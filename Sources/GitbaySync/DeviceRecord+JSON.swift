import GitbayState
import GitbaySupport

extension DeviceRecord {
    /// This device as `device show`, `device set-token`, `device clear` and `status` print it under --json.
    var json: JSONValue {
        .object([
            ("label", .string(label)),
            ("install_marker", .string(installMarker)),
            ("token_prefix", .optional(token?.prefix())),
            ("token_generation", .int(generation)),
            ("token_set_at", .optional(tokenSetAt)),
            ("previous_token_prefixes", .array(history.map { .string($0.prefix) })),
            ("moved_at", .optional(movedAt)),
        ])
    }

    /// True while a database that came from another machine has no device token of this one.
    var awaitsTokenAfterMove: Bool {
        guard let movedAt else { return false }
        return tokenSetAt.map { $0 < movedAt } ?? true
    }
}
