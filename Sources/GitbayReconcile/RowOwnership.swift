import GitbayAPI
import GitbayState
import GitbaySupport

/// The ownership rule applied to one account's `device list`: which rows this device made,
/// and which token each of them holds.
///
/// A row is this device's when a record names it by (id, `added`), or when its label carries
/// this install's marker; nothing else makes a row ours, whatever it shows. Which token a
/// recorded row holds comes from the record. For a row known only by its marker the display
/// tells, when it can: it is a consistency check, and where several of this device's tokens
/// show alike the row is `unsettled` until a re-add of the current token names the row that
/// holds it. `run`, `devices` and `doctor` all read rows through this one rule.
package struct RowOwnership: Sendable {
    /// What a listed row is to this device.
    package enum Kind: Sendable, Equatable {
        /// Made by this device; holds the current token.
        case current
        /// Made by this device; holds a token it held before.
        case oldToken
        /// Made by this device; its display fits the current token and an old one alike.
        case unsettled
        /// Another device's row, or one no record or marker of this install vouches for.
        case notOurs
    }

    /// What became of a recorded row.
    package enum RecordState: Sendable, Equatable {
        /// Listed with the recorded `added` time and a display that fits the recorded token.
        case present
        /// Listed, marked and fitting, but the record does not have the row's `added` yet (it
        /// was just added, or recorded by an earlier version): the list completes it.
        case unconfirmed
        /// Not in the list.
        case gone
        /// The id names another row now (ids are reused), or the record cannot be squared with
        /// the row: the record is dropped and the row judged without it.
        case replaced
    }

    /// Which row this device holds for the account, as a list shows it.
    package enum HeldRow: Sendable, Equatable {
        /// One row of ours is shown (or proven by a record) to hold the current token.
        case row(Int)
        /// None is known to hold it; of these rows of ours, carrying this install's marker, any
        /// may (in list order; empty when none is ours). A re-add of the current token tells.
        case undecided([Int])
    }

    let current: TokenIdentity?
    let oldTokens: [TokenIdentity]
    let installMarker: String
    /// The row this device holds for the account: the one row of kind `current`. `run`, the
    /// lookup after an add answered without an id, `devices` and `doctor` all go by it.
    package let heldRow: HeldRow
    private let kinds: [Int: Kind]
    private let recordStates: [Int: RecordState]
    /// Rows whose token a record with a fingerprint vouches for.
    private let provenByRecord: Set<Int>

    init(current: TokenIdentity?, oldTokens: [TokenIdentity], installMarker: String, records: [RegistrationRecord], rows: [ServerDevice]) {
        self.current = current
        // A token set again later is the current token, not an old one.
        self.oldTokens = oldTokens.filter { old in !(current.map(old.isSameToken) ?? false) }
        self.installMarker = installMarker
        let rowsByID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })

        var states: [Int: RecordState] = [:]
        var recordedTokens: [Int: TokenIdentity] = [:]
        for record in records {
            let state = Self.state(of: record, row: rowsByID[record.deviceID], marker: installMarker)
            states[record.deviceID] = state
            if state == .present || state == .unconfirmed { recordedTokens[record.deviceID] = record.token }
        }

        var kinds: [Int: Kind] = [:]
        var proven: Set<Int> = []
        for row in rows {
            if let token = recordedTokens[row.id], token.fingerprint != nil {
                kinds[row.id] = current.map(token.isSameToken) ?? false ? .current : .oldToken
                proven.insert(row.id)
            } else if recordedTokens[row.id] != nil || row.label.contains("[\(installMarker)]") {
                kinds[row.id] = Self.kind(shown: row.token, current: current, oldTokens: self.oldTokens)
            } else {
                kinds[row.id] = .notOurs
            }
        }

        let holder = Self.settleHolder(&kinds, proven: proven)
        self.kinds = kinds
        heldRow =
            holder.map(HeldRow.row) ?? .undecided(rows.filter { kinds[$0.id] == .unsettled && $0.label.contains("[\(installMarker)]") }.map(\.id))
        recordStates = states
        provenByRecord = proven
    }

    /// This device's view of an account's rows.
    package init(device: DeviceRecord, records: [RegistrationRecord], rows: [ServerDevice]) {
        self.init(
            current: device.token.map(TokenIdentity.init(of:)), oldTokens: device.history.map(\.token),
            installMarker: device.installMarker, records: records, rows: rows
        )
    }

    /// The id of the row this device holds for the account, when one is known.
    package var heldRowID: Int? {
        if case .row(let id) = heldRow { id } else { nil }
    }

    /// The record of the row held, judged from the records alone (a list answered "not
    /// modified", or none was asked): the one recorded with the current token.
    package static func heldRecord(in records: [RegistrationRecord], current: TokenIdentity?) -> RegistrationRecord? {
        guard let current else { return nil }
        return records.first { $0.token.isSameToken(as: current) }
    }

    package func kind(of row: ServerDevice) -> Kind {
        kinds[row.id] ?? .notOurs
    }

    /// What became of a record in this list.
    package func state(of record: RegistrationRecord) -> RecordState {
        recordStates[record.deviceID] ?? .gone
    }

    /// True when a record with a fingerprint vouches for the row's token.
    package func isProvenByRecord(_ row: ServerDevice) -> Bool {
        provenByRecord.contains(row.id)
    }

    /// One row of an instance holds a token. When one row is shown (a record's proof first) to
    /// hold the current token, it is the holder and every other row of ours holds an old one;
    /// when the evidence contradicts itself, none is, and a re-add tells. Returns the holder.
    private static func settleHolder(_ kinds: inout [Int: Kind], proven: Set<Int>) -> Int? {
        let currentIDs = kinds.filter { $0.value == .current }.map(\.key)
        let provenCurrent = currentIDs.filter(proven.contains)
        let holder: Int? = provenCurrent.count == 1 ? provenCurrent[0] : (provenCurrent.isEmpty && currentIDs.count == 1 ? currentIDs[0] : nil)
        for (id, kind) in kinds where kind == .current || kind == .unsettled {
            if let holder {
                if id != holder { kinds[id] = .oldToken }
            } else if kind == .current {
                kinds[id] = .unsettled
            }
        }
        return holder
    }

    private static func state(of record: RegistrationRecord, row: ServerDevice?, marker: String) -> RecordState {
        guard let row else { return .gone }
        guard record.token.canBeShown(as: row.token) else { return .replaced }
        if let added = record.added { return added == row.added ? .present : .replaced }
        return row.label.contains("[\(marker)]") ? .unconfirmed : .replaced
    }

    /// Which of this device's tokens a row of ours can hold, judged by its display alone.
    private static func kind(shown: String, current: TokenIdentity?, oldTokens: [TokenIdentity]) -> Kind {
        let fitsCurrent = current?.canBeShown(as: shown) ?? false
        let fitsOld = oldTokens.contains { $0.canBeShown(as: shown) }
        switch (fitsCurrent, fitsOld) {
        case (true, false): return .current
        case (false, true): return .oldToken
        case (true, true): return .unsettled
        case (false, false): return .notOurs
        }
    }
}
