import GitbayAPI
import GitbayReconcile
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One row of an account's `device list`, as `devices` shows it: with what it is to this device.
struct ListedDevice {
    let row: ServerDevice
    let kind: RowOwnership.Kind

    var isThisDevice: Bool { kind == .current }
    var isOldToken: Bool { kind == .oldToken }
    /// Made by this device, whichever token it holds.
    var isOurs: Bool { kind != .notOurs }

    /// The token as the server shows it, cut to 8 bytes and `…` should a server ever list more.
    var token: String { Self.displayed(row.token) }

    var json: JSONValue {
        .object([
            ("id", .int(row.id)),
            ("label", .string(row.label)),
            ("token", .string(token)),
            ("added", .string(row.added)),
            ("this_device", .bool(isThisDevice)),
            ("old_token", .bool(isOldToken)),
            ("ours", .bool(isOurs)),
        ])
    }

    /// The label for text output: escaped as the server's text, `(no label)` when empty.
    var shownLabel: String { row.label.isEmpty ? "(no label)" : TerminalText.escaped(row.label) }

    /// The token for text output, escaped as the server's text.
    var shownToken: String { TerminalText.escaped(token) }

    /// `  12  laptop [gbs-abc123]  c0ffee00…  added 3 days ago  (this device)`, the label
    /// padded to `labelWidth` and the id to `idWidth`, the time said against `now` (as the
    /// server wrote it, should it not read as RFC 3339).
    func text(idWidth: Int, labelWidth: Int, now: Date) -> String {
        let added = Timestamp.parse(row.added).map { RelativeTime.said($0, now: now) } ?? TerminalText.escaped(row.added)
        let id = String(row.id)
        let label = shownLabel
        var line =
            "  " + String(repeating: " ", count: max(0, idWidth - id.count)) + id
            + "  " + label + String(repeating: " ", count: max(0, labelWidth - label.count))
            + "  " + shownToken + "  added " + added
        switch kind {
        case .current: line += "  (this device)"
        case .oldToken: line += "  (this device, old token)"
        case .unsettled: line += "  (this device, current or old token: the next run settles it)"
        case .notOurs: break
        }
        return line
    }

    /// The shown token limited to its first 8 bytes and `…`. Servers already truncate; this
    /// keeps a full token out of the output even from one that does not.
    static func displayed(_ shown: String) -> String {
        guard shown != TokenDisplay.shortToken else { return shown }
        let bare = shown.hasSuffix("…") ? String(shown.dropLast()) : shown
        guard bare.utf8.count > 8 || shown.hasSuffix("…") else { return bare }
        return String(decoding: Array(bare.utf8.prefix(8)), as: UTF8.self) + "…"
    }
}
