import Foundation

/// An API token as the fake instance keeps it. A real gitbay stores only the token's hash; the
/// fake keeps the token itself so that tests can look it up.
public struct FakeToken: Sendable, Equatable {
    /// The token, `gb_…`, as `Authorization: Bearer` sends it.
    public let value: String
    /// The account it authenticates as.
    public let user: String
    /// Unique among the account's tokens (`token create --name`).
    public let name: String
    public let scope: TokenScope
    /// Whole milliseconds, as every time the fake shows.
    public let createdAt: Date
    /// Nil for a token that never expires (minted without `--ttl`).
    public let expiresAt: Date?
    /// The last successful lookup, nil before the first.
    public internal(set) var lastUsedAt: Date?
    /// Creation order among all tokens, which `token list` follows.
    let serial: Int

    /// Whether a lookup at `instant` succeeds: while `expiresAt` is nil or still ahead.
    public func isValid(at instant: Date) -> Bool {
        expiresAt.map { $0 > instant } ?? true
    }
}
