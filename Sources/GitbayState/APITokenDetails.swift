#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What is known of an account's API token besides the token itself: the name it was minted
/// under, when it stops working and how long it was minted to live. Each is nil when not known
/// (a pasted token given no name, a token that never expires, one stored by an earlier version).
package struct APITokenDetails: Sendable, Equatable {
    package var name: String?
    package var expiresAt: Date?
    /// The `--ttl` it was minted with: a rotation mints its successor for as long.
    package var lifetime: Duration?

    package init(name: String? = nil, expiresAt: Date? = nil, lifetime: Duration? = nil) {
        self.name = name
        self.expiresAt = expiresAt
        self.lifetime = lifetime
    }

    /// Nothing known.
    package static let unknown = APITokenDetails()
}
