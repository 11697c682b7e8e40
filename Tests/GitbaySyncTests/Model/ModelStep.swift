import TestSupport
import Testing

/// Where a run stops as if the process were killed: at the `atRequest`-th request (counted
/// from 1 over the whole command), before it is sent or after the server applied it.
struct ModelCrash: Sendable, Equatable, CustomStringConvertible {
    let atRequest: Int
    let afterServerApplied: Bool

    var description: String { "ModelCrash(atRequest: \(atRequest), afterServerApplied: \(afterServerApplied))" }
}

/// One step of a schedule: something this device does (through the command line), or
/// something the world around it does to a server. Accounts are named by index: 0 and 1 are
/// `alice` and `bob` on instance 0, 2 and 3 `carol` and `dan` on instance 1, 4 `erin` on
/// instance 0 under its other name, `localhost` (signed out at the start).
enum ModelStep: Sendable, Equatable, CustomStringConvertible {
    case setToken(String, label: String?)
    case run(concurrency: Int, crash: ModelCrash?)
    case pause(Int, crash: ModelCrash?)
    case resume(Int, crash: ModelCrash?)
    case prefer(Int, crash: ModelCrash?)
    case removeAccount(Int, crash: ModelCrash?)
    /// Signs a removed account in again with a new API token.
    case relogin(Int, crash: ModelCrash?)
    /// Signs the account in `via` a way of getting its token, whether it is signed in (its
    /// token then replaced), being signed out or signed out.
    case signIn(Int, via: ModelSignIn, crash: ModelCrash?)
    /// The user revokes one of the account's tokens on the web, behind this device's back:
    /// the one it signs in with (`current`), else the newest other valid one this install
    /// minted for it (a replaced token a run has not revoked yet), if any.
    case revokeBehind(Int, current: Bool)
    case clearDevice(crash: ModelCrash?)
    /// Another device of `owner` registers `token` (never one of this device's).
    case otherDevice(instance: Int, owner: String, token: String, label: String)
    /// The server drops a row (APNs said 410, or the user removed it on the web): the
    /// `pick`-th row of the instance, counted modulo the number of rows.
    case reap(instance: Int, pick: Int)
    /// `zed`, an account not signed in here, adds this device's current token (another app on
    /// this device): the row holding it moves to zed. Only when such a row exists.
    case takeToken(instance: Int)
    /// A `run` in progress (as another process would run it) while the step is carried out,
    /// every answer slowed down a little so that they interleave.
    indirect case alongsideRun(ModelStep)
    /// The state folder is copied to a second machine (once), which sets its own device token
    /// and runs; later ones let that machine run again.
    case secondMachine(crash: ModelCrash?)
    /// The instance answers the next device list with a 429 carrying this `Retry-After`, in a
    /// run; this device's clock then moves past the longest wait a run sets.
    case hostileWait(instance: Int, retryAfter: String)
    /// The instance takes connections and never answers, for one run.
    case hungServer(instance: Int)
    /// The instance answers every request a second late, for one run.
    case slowServer(instance: Int)
    /// The machine's keyring starts (a desktop session begins) where there was none: the
    /// tokens kept in the database awaiting one move into it at the next run.
    case keyringStarts
    /// This device's clock moves 61 days on: the API tokens signed in so far (90 days) are
    /// within a third of their lifetime of expiry, and the next run rotates them.
    case nearExpiry

    var crash: ModelCrash? {
        switch self {
        case .run(_, let crash), .pause(_, let crash), .resume(_, let crash), .prefer(_, let crash),
            .removeAccount(_, let crash), .relogin(_, let crash), .signIn(_, _, let crash), .clearDevice(let crash),
            .secondMachine(let crash):
            crash
        case .revokeBehind, .keyringStarts, .setToken, .otherDevice, .reap, .takeToken, .alongsideRun, .hostileWait, .hungServer, .slowServer,
            .nearExpiry:
            nil
        }
    }

    /// The step as Swift source, to paste into the regression cases.
    var description: String {
        func quoted(_ text: String) -> String { "\"" + text.unicodeScalars.map { $0.escaped(asASCII: true) }.joined() + "\"" }
        func crash(_ value: ModelCrash?) -> String { value.map { "\($0)" } ?? "nil" }
        return switch self {
        case .setToken(let token, let label): ".setToken(\(quoted(token)), label: \(label.map(quoted) ?? "nil"))"
        case .run(let concurrency, let value): ".run(concurrency: \(concurrency), crash: \(crash(value)))"
        case .pause(let account, let value): ".pause(\(account), crash: \(crash(value)))"
        case .resume(let account, let value): ".resume(\(account), crash: \(crash(value)))"
        case .prefer(let account, let value): ".prefer(\(account), crash: \(crash(value)))"
        case .removeAccount(let account, let value): ".removeAccount(\(account), crash: \(crash(value)))"
        case .relogin(let account, let value): ".relogin(\(account), crash: \(crash(value)))"
        case .signIn(let account, let via, let value): ".signIn(\(account), via: .\(via), crash: \(crash(value)))"
        case .revokeBehind(let account, let current): ".revokeBehind(\(account), current: \(current))"
        case .clearDevice(let value): ".clearDevice(crash: \(crash(value)))"
        case .otherDevice(let instance, let owner, let token, let label):
            ".otherDevice(instance: \(instance), owner: \(quoted(owner)), token: \(quoted(token)), label: \(quoted(label)))"
        case .reap(let instance, let pick): ".reap(instance: \(instance), pick: \(pick))"
        case .takeToken(let instance): ".takeToken(instance: \(instance))"
        case .alongsideRun(let step): ".alongsideRun(\(step))"
        case .secondMachine(let value): ".secondMachine(crash: \(crash(value)))"
        case .hostileWait(let instance, let value): ".hostileWait(instance: \(instance), retryAfter: \(quoted(value)))"
        case .hungServer(let instance): ".hungServer(instance: \(instance))"
        case .slowServer(let instance): ".slowServer(instance: \(instance))"
        case .nearExpiry: ".nearExpiry"
        case .keyringStarts: ".keyringStarts"
        }
    }
}

/// How a sign-in gets the account's API token.
enum ModelSignIn: String, Sendable, Equatable {
    /// Minted by the test under a name as `login --ssh` gives one, pasted with `--token-name`.
    case named
    /// Minted by the test under a name of the user's own, pasted with no `--token-name`: the
    /// install knows no name to revoke it by.
    case pasted
    /// `login --ssh`: gitbay-sync mints the token itself over a real sshd before the server.
    case ssh
}

/// A whole schedule: which server versions the two instances run, and the steps.
struct ModelSchedule: Sendable, CustomTestStringConvertible {
    var name: String
    /// Per instance: true for v1.32.1 and later (`device add` answers with the id), false for v1.32.0.
    var returnsDeviceID: [Bool]
    var steps: [ModelStep]
    /// False for a machine with no session bus: no keyring answers, every token is kept in the database.
    var keyring = true

    var testDescription: String { name }

    /// The schedule as Swift source.
    var source: String {
        "ModelSchedule(name: \"…\", returnsDeviceID: \(returnsDeviceID), steps: [\n"
            + steps.map { "    \($0)," }.joined(separator: "\n") + "\n]" + (keyring ? "" : ", keyring: false") + ")"
    }
}

/// A `prefer` the user made: the account, on its instance, under the name it signed in with.
struct ModelPreference: Equatable {
    let instance: Int
    let host: String
    let account: Int
}
