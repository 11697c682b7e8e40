import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fields of a gitbay push payload that name its account and its destination.
///
/// Decoding is pure and strict about what identifies the account (`instance`, `user`) and
/// lenient about the rest: unknown fields are ignored, and a missing or non-integer
/// `aps.badge` counts as 0.
package struct PushPayload: Sendable, Equatable {
    /// The server's site URL, normalised (so a trailing slash does not matter).
    package let instance: InstanceURL
    /// The recipient's user name on that instance.
    package let user: String
    /// Where the push points, e.g. `owner/repo/issues/1`.
    package let path: String
    /// The unread inbox count (`aps.badge`), 0 when absent.
    package let badge: Int

    /// Decodes a payload as PROTOCOL.md shows it.
    package init(decoding text: String) throws(PayloadError) {
        guard !text.trimmingWhitespace().isEmpty else { throw .empty }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(text.utf8))
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw .notAnObject
        } catch {
            throw .notJSON
        }
        let instanceText = try Self.required(wire.instance, "instance")
        let user = try Self.required(wire.user, "user")
        let path = try Self.required(wire.path, "path", allowEmpty: true)
        do {
            instance = try InstanceURL(parsing: instanceText)
        } catch {
            throw .badInstance(error)
        }
        self.user = user
        self.path = path
        badge = wire.badge ?? 0
    }

    /// The destination, or nil when the app has no screen for `path`.
    package var destination: PushDestination? { PushDestination(path: path) }

    private static func required(_ field: Field, _ name: String, allowEmpty: Bool = false) throws(PayloadError) -> String {
        switch field {
        case .absent: throw .missing(name)
        case .notText: throw .wrongType(field: name, expected: "a string")
        case .text(let text):
            guard allowEmpty || !text.trimmingWhitespace().isEmpty else { throw .missing(name) }
            return text
        }
    }

    /// A string field as found: absent (or null), another type, or text.
    private enum Field {
        case absent, notText, text(String)
    }

    /// The payload as sent, read field by field so each problem is reported by name.
    private struct Wire: Decodable {
        let instance: Field
        let user: Field
        let path: Field
        let badge: Int?

        private enum Key: String, CodingKey {
            case instance, user, path, aps
        }

        private enum APSKey: String, CodingKey {
            case badge
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            instance = Self.field(container, .instance)
            user = Self.field(container, .user)
            path = Self.field(container, .path)
            let aps = try? container.nestedContainer(keyedBy: APSKey.self, forKey: .aps)
            badge = (try? aps?.decodeIfPresent(Int.self, forKey: .badge)) ?? nil
        }

        private static func field(_ container: KeyedDecodingContainer<Key>, _ key: Key) -> Field {
            guard container.contains(key), (try? container.decodeNil(forKey: key)) == false else { return .absent }
            guard let text = try? container.decode(String.self, forKey: key) else { return .notText }
            return .text(text)
        }
    }
}
