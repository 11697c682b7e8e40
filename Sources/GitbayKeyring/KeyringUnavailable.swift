import GitbaySupport

/// Why the OS keyring could not do what was asked. Never "no item": the keyring did not
/// answer, or answered that it cannot, so what it holds is unknown. Values only; the CLI
/// words them.
package enum KeyringUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// The keyring's library could not be opened (libsecret missing or unusable).
    case libraryMissing(path: String, detail: String)
    /// No D-Bus session bus to reach: none named in the environment, or none answering there
    /// (a headless server, a service started without the user's session).
    case noSessionBus(detail: String)
    /// The session bus has no Secret Service on it (nothing provides or starts one).
    case noService(detail: String)
    /// The keyring, or the item, is locked, and no prompt was allowed (or the user did not
    /// unlock it).
    case locked
    /// There is no default keyring to store into; making one needs the user.
    case noKeyring
    /// The keyring did not finish within the time allowed.
    case timedOut(Duration)
    /// The keyring answered with an error of another kind.
    case failed(detail: String)

    /// True when there is no keyring here to wait for (no library, no session bus, no
    /// Secret Service, no default keyring); false for one that may answer later (locked,
    /// slow, failing).
    package var isAbsent: Bool {
        switch self {
        case .libraryMissing, .noSessionBus, .noService, .noKeyring: true
        case .locked, .timedOut, .failed: false
        }
    }

    /// What the keyring (libsecret, the Secret Service, the Keychain, the dynamic loader) said,
    /// as it enters a reason: on one line, at most 300 characters. It stays raw otherwise:
    /// whatever prints it escapes it once.
    package static func said(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
            .joined(separator: "; ")
        return line.count <= 300 ? line : String(line.prefix(300)) + "…"
    }

    package var description: String {
        switch self {
        case .libraryMissing(let path, let detail): "the keyring library \(path) could not be opened: \(detail)"
        case .noSessionBus(let detail): "no D-Bus session bus: \(detail)"
        case .noService(let detail): "no Secret Service on the session bus: \(detail)"
        case .locked: "the keyring is locked"
        case .noKeyring: "there is no default keyring"
        case .timedOut(let timeout): "the keyring did not answer within \(timeout)"
        case .failed(let detail): "the keyring failed: \(detail)"
        }
    }
}
