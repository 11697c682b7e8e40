/// The process exit codes, documented in docs/reference.md (Exit codes). Below 128, so a
/// shell can tell them from a death by signal.
package enum ExitCode: Int32, Sendable, CaseIterable {
    /// Everything asked for was done, and every account is in its desired state.
    case success = 0
    /// Partly done: one or more accounts failed (named on stderr), or `doctor` found a problem.
    case partialFailure = 1
    /// The command line is wrong (unknown command or option, missing argument, bad value).
    case usage = 64
    /// Input data is wrong: a malformed URL, SSH destination, `$GITBAY_SYNC_SSH`, API token,
    /// device token or push payload, more on stdin than the command reads, or a token name the
    /// server refused for `login --ssh`.
    case dataError = 65
    /// There is no state database at the path, and the command only reads one (or is `run`),
    /// so it created nothing.
    case noDatabase = 66
    /// The named account is not signed in (or is being signed out, for a command that acts on
    /// signed-in accounts).
    case noSuchAccount = 67
    /// A server could not be reached or refused the request for a reason that may pass; or,
    /// for a command that talks to servers, libcurl could not be opened (nothing was done);
    /// or, for `login --ssh`, the ssh program is missing, could not reach the host, ran past
    /// its timeout or got no gitbay answer.
    case unavailable = 69
    /// `service install --enable`: the units were written, but the service manager did not
    /// enable them or they are not running (no systemd user manager, no systemctl, a step
    /// that failed); the message says what was and was not done. sysexits' EX_OSERR.
    case notEnabled = 71
    /// Standard output or standard error could not be written (a full disk, a closed pipe):
    /// the command's report is incomplete. sysexits' EX_CANTCREAT ("an output file cannot be
    /// created"); EX_IOERR, 74, already means the state database.
    case outputFailed = 73
    /// The state database cannot be used (not a database, newer schema, permissions).
    case stateError = 74
    /// Busy, or not checked: another gitbay-sync is reconciling the account (it, or the next
    /// run, finishes the job), a sign-in came while `remove-account` ran, the state database
    /// stayed locked by another process, or a run could not check an account (its token in a
    /// locked or absent keyring) while none failed. Nothing was lost; trying again works.
    /// sysexits' EX_TEMPFAIL.
    case busy = 75
    /// A server refused the API token (invalid, expired or read-only), or, for `login --ssh`,
    /// the SSH key or the `token create`.
    case denied = 77
    /// `service install` or `uninstall`: a unit file of that name was not written by
    /// `service install`, so it was left alone (`--force` replaces or removes it); or, for
    /// `install`, the unit folder is another user's or others can write it, or a missing one
    /// would be created in another user's folder (`--force` does not override that).
    /// sysexits' EX_CONFIG: the service configuration is someone else's.
    case foreignFile = 78
}

extension ExitCode {
    /// The word `--json` errors carry for the code (`"kind"`), stable like the codes.
    /// What the code means, in the few words `--help` gives it.
    var inBrief: String {
        switch self {
        case .success: "ok"
        case .partialFailure: "some accounts failed"
        case .usage: "usage"
        case .dataError: "bad input data"
        case .noDatabase: "no state database"
        case .noSuchAccount: "no such account"
        case .unavailable: "server unavailable"
        case .notEnabled: "service units written but not enabled"
        case .outputFailed: "output not written"
        case .stateError: "state database unusable"
        case .busy: "not checked or busy (an account could not be checked, or another gitbay-sync has it or the database; try again)"
        case .denied: "token refused"
        case .foreignFile: "unit file not written by gitbay-sync"
        }
    }

    var kind: String {
        switch self {
        case .success: "ok"
        case .partialFailure: "failed"
        case .usage: "usage"
        case .dataError: "bad-input"
        case .noDatabase: "no-database"
        case .noSuchAccount: "no-such-account"
        case .unavailable: "unavailable"
        case .notEnabled: "not-enabled"
        case .outputFailed: "output-failed"
        case .stateError: "state-database"
        case .busy: "busy"
        case .denied: "denied"
        case .foreignFile: "foreign-unit-file"
        }
    }
}

/// A command stopped by SIGINT or SIGTERM that said what it did and what it left: the process
/// ends by that signal, so a shell (or a script's loop) sees the interruption as from any
/// program, `128 + signal` (130 for SIGINT, 143 for SIGTERM).
struct StoppedBySignal: Error {
    let signal: Int32
}
