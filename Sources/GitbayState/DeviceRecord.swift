import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// This device as stored.
///
/// Its fields are held once on the heap (`CopyOnWrite`): every account's pass of a run holds
/// the device.
package struct DeviceRecord: Sendable, Equatable {
    private struct Values: Equatable {
        let token: Secret?
        let generation: Int
        let label: String
        let installMarker: String
        let tokenSetAt: Date?
        let history: [RetiredToken]
        let tokenIdentity: TokenIdentity?
        var machine: String?
        var movedAt: Date?
    }

    private var fields: CopyOnWrite<Values>

    /// The current push token, if one is set.
    package var token: Secret? { fields.value.token }
    /// Bumped with every new token.
    package var generation: Int { fields.value.generation }
    package var label: String { fields.value.label }
    /// Short random text that marks this install's rows on the server.
    package var installMarker: String { fields.value.installMarker }
    package var tokenSetAt: Date? { fields.value.tokenSetAt }
    package var history: [RetiredToken] { fields.value.history }
    /// The current token's identity (first bytes, length, fingerprint), worked out once.
    package var tokenIdentity: TokenIdentity? { fields.value.tokenIdentity }
    /// The machine the install is bound to (`MachineIdentity.hash`); nil before it is bound,
    /// or where no identity can be read.
    package var machine: String? {
        get { fields.value.machine }
        set { fields.value.machine = newValue }
    }
    /// When the database was found on another machine and became a new install here.
    package var movedAt: Date? {
        get { fields.value.movedAt }
        set { fields.value.movedAt = newValue }
    }

    init(token: Secret?, generation: Int, label: String, installMarker: String, tokenSetAt: Date?, history: [RetiredToken]) {
        fields = CopyOnWrite(
            Values(
                token: token, generation: generation, label: label, installMarker: installMarker, tokenSetAt: tokenSetAt,
                history: history, tokenIdentity: token.map(TokenIdentity.init(of:)), machine: nil, movedAt: nil))
    }

    package static func == (lhs: DeviceRecord, rhs: DeviceRecord) -> Bool {
        lhs.fields.sharesStorage(with: rhs.fields) || lhs.fields.value == rhs.fields.value
    }

    /// The label as sent to servers: the user's label and the install marker.
    package var serverLabel: String { "\(label) [\(installMarker)]" }
}
