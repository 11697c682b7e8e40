import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Column readers for values the store keeps in more than one table.
extension Statement {
    /// A time column declared NOT NULL, as `Timestamp` writes it; the epoch should it not parse.
    func requiredDate(_ column: Int32) -> Date {
        Timestamp.parse(text(column)) ?? Date(timeIntervalSince1970: 0)
    }

    /// A token's identity from its fingerprint, length and shown columns. A token recorded
    /// before fingerprints were kept has none of them and is known by `prefix`, its first 8
    /// bytes, only.
    func tokenIdentity(fingerprint: Int32, length: Int32, shown: Int32, prefix: String) -> TokenIdentity {
        guard let digest = text(fingerprint) else { return TokenIdentity(fingerprint: nil, length: nil, shown: prefix) }
        return TokenIdentity(fingerprint: digest, length: optionalInteger(length).map(Int.init), shown: text(shown) ?? "")
    }
}
