/// The prose of the manual page that does not come from the command list.
enum ManPageText {
    static let description = [
        """
        gitbay-sync keeps this device's push registration true on the servers of every signed-in
        gitbay account. It records in a local SQLite database which account holds which device row
        on its server, and reconciles that record with each account's device list: it adds the row
        that is missing, removes the rows of old tokens and of signed-out accounts, follows a token
        rotation, and never touches another device's row.
        """,
        """
        It is meant to run without anyone watching: at login and on a timer (`gitbay-sync service
        install`), and when an account signs out (`remove-account`, or `logout`), whose pre-removal
        hook deregisters the device while the account's API token still exists.
        """,
        """
        Secrets are never taken in argv: the API token and the device token are read on standard
        input, or asked for without echo on a terminal. Options may come before or after the
        command words, as `--option value` or `--option=value`; `--` ends the options.
        """,
    ]

    /// What an exit code means, in a sentence.
    static func meaning(of code: ExitCode) -> String {
        switch code {
        case .success: "Done: every account is in its desired state, or waits out a backoff."
        case .partialFailure: "Partly done: one or more accounts failed (named on standard error), or `doctor` found a problem."
        case .usage: "The command line is wrong: an unknown command or option, a missing argument or a bad value."
        case .dataError:
            "Bad input data: a malformed instance URL, SSH destination, $GITBAY_SYNC_SSH, API token, device token, label or push payload, more on standard input than the command reads, or a token name the server refused for `login --ssh`."
        case .noDatabase: "There is no state database at the path, and the command only reads one (or is `run`): nothing was created."
        case .noSuchAccount:
            "The named account is not signed in, or is being signed out (`removing`) and the command acts on signed-in accounts only."
        case .unavailable:
            "A server could not be reached or failed, or the pre-remove hook failed or was refused (someone else could change it); a removal is kept as `removing`. Or libcurl could not be opened: a command that talks to servers did nothing. Or, for `login --ssh`, there is no ssh program, ssh could not reach the host or ran past its timeout, or the answer was not gitbay's."
        case .notEnabled:
            "`service install --enable`: the units were written, but the service manager did not enable them or they are not running (no systemd user manager, no systemctl, a step that failed); the message says what was done."
        case .outputFailed: "Standard output or standard error could not be written: what the command did is done, but its report is incomplete."
        case .stateError: "The state database cannot be used: not a database, written by a newer gitbay-sync, another user's, or not safe to use."
        case .busy:
            "Busy: another gitbay-sync is writing for the account right now (it, or the next run, finishes the job), the account was signed in again while `remove-account` ran, or the state database stayed locked by another process; nothing was lost, try again."
        case .denied:
            "A server refused the API token (invalid, expired or read-only), or, for `login --ssh`, the SSH key or the `token create`; for `remove-account`, the removal is kept and nothing retries it until a new sign-in or `--force`."
        case .foreignFile:
            "`service install` or `service uninstall`: a unit file of that name was not written by `service install`; `--force` replaces or removes it. Or `service install`: the unit folder is another user's or others can write it, or would be created in another user's folder; nothing was written."
        }
    }

    static let files: [(path: String, about: String)] = [
        (
            "$XDG_STATE_HOME/gitbay-sync/state.db",
            "The state database (SQLite, with its -wal and -shm files beside it), unless `--db` or $GITBAY_SYNC_DB names another; without $XDG_STATE_HOME, ~/.local/state/gitbay-sync/state.db."
        ),
        (
            "$XDG_CONFIG_HOME/gitbay-sync/hooks/pre-remove",
            "The pre-removal hook, run when an account signs out if it is executable and only you (or root) can change it or its folder."
        ),
        ("$XDG_CONFIG_HOME/systemd/user/gitbay-sync.service", "The login service `service install` writes on Linux."),
        ("$XDG_CONFIG_HOME/systemd/user/gitbay-sync.timer", "The periodic timer `service install` writes on Linux."),
        ("~/Library/LaunchAgents/org.gitbay.gitbay-sync.plist", "The launchd agent `service install` writes on macOS."),
    ]

    static let environment: [(name: String, about: String)] = [
        ("GITBAY_SYNC_DB", "The state database, when `--db` is not given."),
        ("XDG_STATE_HOME", "Where the state database lives by default (else ~/.local/state)."),
        ("XDG_CONFIG_HOME", "Where the pre-remove hook and the systemd user units live (else ~/.config)."),
        ("HOME", "The home folder, for the defaults above and the launchd agent."),
        (
            "SSL_CERT_FILE",
            "A file of certificate authorities to trust for https instances (such as a private one), in place of libcurl's default file."
        ),
        ("SSL_CERT_DIR", "A folder of certificate authorities (OpenSSL's hashed names), in place of libcurl's default folder."),
        (
            "https_proxy, http_proxy, all_proxy, no_proxy",
            "A proxy for requests to instances, as libcurl reads them (http_proxy in lower case only); no_proxy lists hosts reached directly."
        ),
        (
            "GITBAY_SYNC_LIBCURL",
            "The libcurl file to open, instead of the system's, when a command first sends a request (commands that send nothing never open it)."
        ),
        (
            "GITBAY_SYNC_SSH",
            "The ssh program `login --ssh` runs, with the words it starts with (`ssh -i ~/.ssh/gitbay_key`), split as a shell splits words but run by no shell; else ssh on PATH."
        ),
        (
            "GITBAY_SYNC_SYSTEMCTL",
            "The systemctl program `service install --enable` runs, with the words it starts with, split like GITBAY_SYNC_SSH; else systemctl on PATH."
        ),
        (
            "GITBAY_SYNC_NOTIFY",
            "The notify-send program an unattended run raises a desktop notification with, split like GITBAY_SYNC_SSH; else notify-send on PATH."
        ),
        (
            "DISPLAY, WAYLAND_DISPLAY, DBUS_SESSION_BUS_ADDRESS",
            "An unattended run raises desktop notifications only when one of these says there is a desktop session."
        ),
        ("JOURNAL_STREAM", "Set by systemd: when a standard stream is the journal's, each line carries its priority."),
        (
            "GITBAY_SYNC_ACCOUNT, GITBAY_SYNC_INSTANCE, GITBAY_SYNC_USER",
            "Set for the pre-remove hook: the account being removed, its instance URL and its user name."
        ),
        (
            "GITBAY_SYNC_HOOK_RUN",
            "Set for the pre-remove hook and inherited by what it starts: marks those processes, so that they are stopped with the hook."
        ),
    ]
}
