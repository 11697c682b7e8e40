import GitbayKeyring
import GitbayReconcile
import GitbayState
import GitbaySupport

/// The command line's words for where an API token lives, and for a keyring that did not
/// answer: the core says why as a value (`KeyringUnavailable`), the agent says what to do.
enum KeyringText {
    /// What to do about a keyring that did not answer, as a clause.
    static func fix(_ reason: KeyringUnavailable) -> String {
        switch reason {
        case .locked: "unlock the keyring (log in to your desktop session, or unlock it in Seahorse)"
        case .noSessionBus: "run gitbay-sync inside your desktop session, where DBUS_SESSION_BUS_ADDRESS or $XDG_RUNTIME_DIR/bus names its bus"
        case .noService: "start a Secret Service (gnome-keyring, KeePassXC or KWallet) in your session"
        case .libraryMissing: "install libsecret (Debian and Ubuntu: `apt install libsecret-1-0`)"
        case .noKeyring: "make a default keyring (in Seahorse, or your keyring's own tool)"
        case .timedOut, .failed: "check the keyring (in Seahorse, or your keyring's own tool)"
        }
    }

    /// The command that deletes this program's keyring item `item` (its `account` attribute)
    /// by hand, quoted for a shell.
    static func deleteCommand(item: String) -> String {
        #if os(macOS)
        ["security", "delete-generic-password", "-s", "gitbay-sync", "-a", item].map(ShellWords.quoted).joined(separator: " ")
        #else
        ["secret-tool", "clear", "service", "gitbay-sync", "account", item].map(ShellWords.quoted).joined(separator: " ")
        #endif
    }

    /// What `login` says of where it kept the token.
    static func kept(_ kept: KeptToken, choice: TokenStoreChoice?) -> String {
        switch kept.place {
        case .keyring:
            return "Its API token is kept in the OS keyring; the database keeps only a reference to it."
        case .database, .awaitingKeyring:
            guard choice != .database, let reason = kept.keyringUnavailable else {
                return "Its API token is kept in the state database (a file only you can read), as --token-store database asks."
            }
            return
                "Its API token is kept in the state database (a file only you can read) for now, not in a keyring: \(escaped: reason.description). The first run that finds a keyring answering moves it there: \(fix(reason))."
        }
    }

    /// What a run says of a token kept in the database until a keyring answers, once it tried
    /// to move it into the keyring.
    static func moved(_ move: TokenMove) -> String {
        switch move {
        case .moved(let wiped):
            "API token moved into the OS keyring"
                + (wiped ? ", and wiped from the state database's files" : "; its bytes leave the state database's files at the next checkpoint")
        case .waiting(let reason):
            // The keyring's own words: a reason is printed as it is, so they are escaped here, once.
            "API token not moved into the OS keyring yet: \(escaped: reason.description); the next run tries again"
        }
    }

    /// What `doctor` says of where an account's token lives.
    static func place(_ place: TokenPlace?) -> String {
        switch place {
        case .keyring?: "in the OS keyring; the database keeps only a reference"
        case .database?: "in the state database (a file only you can read), not in a keyring"
        case .awaitingKeyring?:
            "in the state database (a file only you can read) until a keyring answers: the first run that finds one moves it there"
        case nil: "nowhere: no API token is stored"
        }
    }
}
