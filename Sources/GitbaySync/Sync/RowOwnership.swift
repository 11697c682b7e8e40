/// The ownership rule applied to one account's `device list`: which rows this device made.
///
/// A row is ours when its id is recorded with a token prefix the row still shows, or when its
/// label carries this install's marker; among ours, the token tells the current row from rows
/// of tokens this device held before. Everything else belongs to another device and is never
/// touched. The reconcile plan and `devices` both read rows through this one rule.
struct RowOwnership: Sendable {
    /// What a listed row is to this device.
    enum Kind: Sendable, Equatable {
        /// Made by this device with its current token.
        case current
        /// Made by this device with a token it held before.
        case oldToken
        /// Another device's row, or a recorded id now reused for another token.
        case notOurs
    }

    /// What became of a recorded row.
    enum RecordState: Sendable, Equatable {
        /// Listed, still showing the recorded token.
        case present
        /// Not in the list.
        case gone
        /// Listed, but showing another token: the id was reused.
        case reused
    }

    /// The current token's 8-byte prefix and full length in bytes, or nil when none is set.
    let currentToken: (prefix: String, length: Int)?
    let oldPrefixes: [String]
    let installMarker: String
    private let rowsByID: [Int: ServerDevice]
    /// Recorded ids whose row still shows the recorded token.
    private let provenIDs: Set<Int>

    init(currentToken: (prefix: String, length: Int)?, oldPrefixes: [String], installMarker: String, records: [RegistrationRecord], rows: [ServerDevice]) {
        self.currentToken = currentToken
        self.oldPrefixes = oldPrefixes
        self.installMarker = installMarker
        let rowsByID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.rowsByID = rowsByID
        provenIDs = Set(records.filter { Self.state(of: $0, rowsByID: rowsByID) == .present }.map(\.deviceID))
    }

    /// This device's view of its rows: its current token and the prefixes of the ones before.
    init(device: DeviceRecord, records: [RegistrationRecord], rows: [ServerDevice]) {
        self.init(
            currentToken: device.token.map { ($0.prefix(), $0.exposedValue.utf8.count) },
            oldPrefixes: device.history.map(\.prefix), installMarker: device.installMarker, records: records, rows: rows
        )
    }

    /// Whether a record's row is still listed with the recorded token.
    func state(of record: RegistrationRecord) -> RecordState {
        Self.state(of: record, rowsByID: rowsByID)
    }

    private static func state(of record: RegistrationRecord, rowsByID: [Int: ServerDevice]) -> RecordState {
        guard let row = rowsByID[record.deviceID] else { return .gone }
        return TokenMatch.matches(shown: row.token, prefix: record.tokenPrefix) ? .present : .reused
    }

    /// True when the row's label carries this install's marker.
    func hasMarker(_ row: ServerDevice) -> Bool {
        row.label.contains("[\(installMarker)]")
    }

    func kind(of row: ServerDevice) -> Kind {
        guard provenIDs.contains(row.id) || hasMarker(row) else { return .notOurs }
        // A short token shows as `(short token)`, which any short token matches: only the
        // marker can make such a row ours.
        if let currentToken, TokenMatch.matches(shown: row.token, prefix: currentToken.prefix),
           !(currentToken.length <= 8 && !hasMarker(row)) {
            return .current
        }
        if oldPrefixes.contains(where: { TokenMatch.matches(shown: row.token, prefix: $0) }) {
            return .oldToken
        }
        return .notOurs
    }
}
