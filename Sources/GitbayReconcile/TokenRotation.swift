import GitbayKeyring
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When a run renews an account's API token, and what the successor is called and given: a
/// function of what is stored, table-tested. Only a token this install minted has its name,
/// expiry and lifetime all known; a pasted one is never rotated.
package enum TokenRotation {
    /// What a run does for an account's token. Neither: no request at all.
    package struct Need: Sendable, Equatable {
        /// Revoke the stale tokens of this install that `token list` still shows.
        package var cleanUp: Bool
        /// Mint the successor, store it, revoke the current one.
        package var rotate: Bool

        package init(cleanUp: Bool, rotate: Bool) {
            self.cleanUp = cleanUp
            self.rotate = rotate
        }

        package var isNeeded: Bool { cleanUp || rotate }
    }

    /// A token is rotated once no more than a third of its lifetime is left before it expires,
    /// when this install minted it: its name ends in `installMarker` (before any rotation
    /// suffix). A database copied from another machine is a new install there, and leaves the
    /// tokens the other install minted (and uses) alone.
    package static func need(_ details: APITokenDetails, staleNames: [String], installMarker: String, now: Date) -> Need {
        let ours = details.name.map { isThisInstalls($0, installMarker: installMarker) } ?? false
        // A token of this install whose expiry is not known yet: the list that cleans up tells it.
        let expiryUnknown = ours && details.expiresAt == nil && details.lifetime != nil
        return Need(
            cleanUp: expiryUnknown || staleNames.contains { isThisInstalls($0, installMarker: installMarker) },
            rotate: ours && (rotationTime(details).map { now >= $0 } ?? false))
    }

    /// From when `status`, `doctor` and runs warn that the token lapses with nothing renewing
    /// it: a token this install minted (its lifetime is known) under a name the user pinned with
    /// `--token-name`, which no run rotates (a successor under another name would not be the
    /// one asked for), from a fifth of its lifetime before it expires. Nil for any other token.
    package static func pinnedLapseWarning(_ details: APITokenDetails, installMarker: String) -> Date? {
        guard let name = details.name, !isThisInstalls(name, installMarker: installMarker), let expiresAt = details.expiresAt,
            let lifetime = details.lifetime, lifetime > .zero
        else { return nil }
        return expiresAt.addingTimeInterval(-Double(lifetime.components.seconds) / 5)
    }

    /// Whether `name` is one this install generates: its name for the install, with or without
    /// a rotation suffix.
    package static func isThisInstalls(_ name: String, installMarker: String) -> Bool {
        !installMarker.isEmpty && baseName(of: name).hasSuffix("-" + installMarker)
    }

    /// When the token is due for rotation; nil when it is never rotated (its name, expiry or
    /// lifetime is not known).
    package static func rotationTime(_ details: APITokenDetails) -> Date? {
        guard details.name != nil, let expiresAt = details.expiresAt, let lifetime = details.lifetime, lifetime > .zero else { return nil }
        return expiresAt.addingTimeInterval(-Double(lifetime.components.seconds) / 3)
    }

    /// The successor of the token named `name`, minted at `now`: the same name with its
    /// rotation suffix, `-r` and the UTC time to the second, replaced
    /// (`gitbay-sync-laptop-gbs-k3x9q2-r20261201162233`). Unique to the install as its first
    /// token's name is, and told apart by the time.
    package static func successorName(of name: String, at now: Date) -> String {
        let digits = Timestamp.format(now).prefix(19).filter(\.isASCIIDigit)
        return baseName(of: name) + "-r" + digits
    }

    /// The keyring item (its `account` attribute) a rotation writes the successor named
    /// `tokenName` of `account`'s token to: an item of its own beside the one in use, so that
    /// the token in use stays where it is until the database points at the successor.
    package static func keyringItem(of account: String, tokenName: String) -> String {
        account + " " + tokenName
    }

    /// `name` without a rotation suffix.
    static func baseName(of name: String) -> String {
        let suffixLength = 16
        guard name.count > suffixLength else { return name }
        let suffix = name.suffix(suffixLength)
        guard suffix.hasPrefix("-r"), suffix.dropFirst(2).allSatisfy(\.isASCIIDigit) else { return name }
        return String(name.dropLast(suffixLength))
    }

    /// `--ttl` for `lifetime`, as the server reads it: whole days as `<N>d`, else whole hours
    /// as `<N>h`, else seconds (a Go duration).
    package static func ttl(_ lifetime: Duration) -> String {
        let seconds = lifetime.components.seconds
        if seconds % 86_400 == 0 { return "\(seconds / 86_400)d" }
        if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        return "\(seconds)s"
    }
}

/// What a run did to an account's API token, when it did anything.
package struct TokenRenewal: Sendable, Equatable {
    /// When the token was rotated: the name of the one it replaced.
    package var predecessor: String?
    /// When the token was rotated: the successor's name, now the stored token's.
    package var successor: String?
    /// The predecessor was revoked too (false: it is stale, and a later run revokes it).
    package var predecessorRevoked = false
    /// Stale tokens of this install revoked (or found gone) on the server.
    package var revoked: [String] = []
    /// What failed, when something did; the next run tries again.
    package var failure: AccountFailure?
    /// The keyring did not take the successor (or let go of a stale token's item): the
    /// account's token stays the one in use, and the next run tries again.
    package var keyringUnavailable: KeyringUnavailable?

    package init() {}
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
