#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What is known of an account's API token besides the token itself: the name it was minted
/// under and when it stops working. Either is nil when not known (a pasted token given no
/// name, a token that never expires, one stored by an earlier version).
package struct APITokenDetails: Sendable, Equatable {
    package var name: String?
    package var expiresAt: Date?

    package init(name: String? = nil, expiresAt: Date? = nil) {
        self.name = name
        self.expiresAt = expiresAt
    }

    /// Nothing known.
    package static let unknown = APITokenDetails()
}
