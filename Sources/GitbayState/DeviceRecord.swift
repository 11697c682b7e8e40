import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// This device as stored.
///
/// Its fields are held once on the heap, copied only when a value that shares them is
/// changed: every account's pass of a run holds the device, and a copy then costs one
/// reference count instead of one per string. `@unchecked Sendable` invariant of `Box`:
/// `values` is written only through `DeviceRecord.values`, which first makes the box this
/// value's own; a box two values share is never written.
package struct DeviceRecord: Sendable, Equatable {
    private struct Values: Equatable {
        let token: Secret?
        let generation: Int
        let label: String
        let installMarker: String
        let tokenSetAt: Date?
        let history: [RetiredToken]
        let tokenIdentity: TokenIdentity?
        let serverLabel: String
        var machine: String?
        var movedAt: Date?
    }

    private final class Box: @unchecked Sendable {
        var values: Values
        init(_ values: Values) { self.values = values }
    }

    private var box: Box

    private var values: Values {
        get { box.values }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.values) }
            yield &box.values
        }
    }

    /// The current push token, if one is set.
    package var token: Secret? { box.values.token }
    /// Bumped with every new token.
    package var generation: Int { box.values.generation }
    package var label: String { box.values.label }
    /// Short random text that marks this install's rows on the server.
    package var installMarker: String { box.values.installMarker }
    package var tokenSetAt: Date? { box.values.tokenSetAt }
    package var history: [RetiredToken] { box.values.history }
    /// The current token's identity (first bytes, length, fingerprint), worked out once.
    package var tokenIdentity: TokenIdentity? { box.values.tokenIdentity }
    /// The machine the install is bound to (`MachineIdentity.hash`); nil before it is bound,
    /// or where no identity can be read.
    package var machine: String? {
        get { box.values.machine }
        set { values.machine = newValue }
    }
    /// When the database was found on another machine and became a new install here.
    package var movedAt: Date? {
        get { box.values.movedAt }
        set { values.movedAt = newValue }
    }

    init(token: Secret?, generation: Int, label: String, installMarker: String, tokenSetAt: Date?, history: [RetiredToken]) {
        box = Box(
            Values(
                token: token, generation: generation, label: label, installMarker: installMarker, tokenSetAt: tokenSetAt,
                history: history, tokenIdentity: token.map(TokenIdentity.init(of:)), serverLabel: "\(label) [\(installMarker)]",
                machine: nil, movedAt: nil))
    }

    package static func == (lhs: DeviceRecord, rhs: DeviceRecord) -> Bool {
        lhs.box === rhs.box || lhs.box.values == rhs.box.values
    }

    /// The label as sent to servers: the user's label and the install marker, made once
    /// (every account's pass asks for it).
    package var serverLabel: String { box.values.serverLabel }
}
