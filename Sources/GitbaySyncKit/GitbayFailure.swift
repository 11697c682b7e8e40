import GitbayAPI
import GitbayKeyring
import GitbayReconcile
import GitbayState

/// What failed for an account, as a value. `description` is the engine's plain account of it
/// (what the account's status records as its last error); an app words it its own way.
public indirect enum GitbayFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server refused or failed a request, or the connection to it did.
    case server(GitbayServerFailure)
    /// What failed when an earlier run last tried the account, as that run recorded it: the
    /// only form it is kept in.
    case earlierRun(recorded: String)
    /// The state database could not be used.
    case database(GitbayDatabaseFailure)
    /// The token store holding the account's API token did not answer.
    case tokenStore(GitbayTokenStoreFailure)
    /// The app's removal step threw; `message` is what its error said.
    case removalStep(message: String)
    /// The work was stopped on purpose: cancelled, out of its budget, or suspended.
    case stopped
    /// The account was not reconciled: it was no longer there to read.
    case notReconciled
    /// `token revoke <name>` answered, yet the token this device held still works: the name
    /// was not its own. `nameKnown`: the server had a token of that name (and revoked it).
    case tokenStillAccepted(name: String, nameKnown: Bool)
    /// The account's stored user name is not one gitbay gives: an earlier version stored it
    /// from a server that is not gitbay. Nothing is sent for the account until it is signed out.
    case unusableUsername
    /// Anything else, as it described itself.
    case other(message: String)

    /// What the engine said.
    public var description: String {
        switch self {
        case .server(let failure): failure.description
        case .earlierRun(let text): text
        case .database(let failure): failure.description
        case .tokenStore(let failure): failure.description
        case .removalStep(let message): LocalFailure.removalStep(message).description
        case .stopped: LocalFailure.stopped.description
        case .notReconciled: LocalFailure.notReconciled.description
        case .tokenStillAccepted(let name, let nameKnown): LocalFailure.tokenStillAccepted(name: name, nameKnown: nameKnown).description
        case .unusableUsername: LocalFailure.unusableName.description
        case .other(let message): message
        }
    }

    init(_ failure: AccountFailure) {
        switch failure {
        case .server(let error): self = .server(GitbayServerFailure(error))
        case .recorded(let text): self = .earlierRun(recorded: text)
        case .local(let local): self.init(local)
        }
    }

    private init(_ failure: LocalFailure) {
        switch failure {
        case .store(let error): self = .database(GitbayDatabaseFailure(error))
        case .keyring(let reason): self = .tokenStore(GitbayTokenStoreFailure(reason))
        case .removalStep(let said): self = .removalStep(message: said)
        case .stopped: self = .stopped
        case .notReconciled: self = .notReconciled
        case .tokenStillAccepted(let name, let nameKnown): self = .tokenStillAccepted(name: name, nameKnown: nameKnown)
        case .unusableName: self = .unusableUsername
        case .other(let text): self = .other(message: text)
        }
    }
}

/// A request the server refused or failed, or that got no answer.
public struct GitbayServerFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as far as an app acts on it.
    public enum Kind: Sendable, Equatable {
        /// 401: the API token is missing, unknown, expired or revoked.
        case authFailed
        /// 403: the token has `read` scope and the command writes.
        case readOnlyToken
        /// 403 `too many writes`: the account's write limit; the wait, when the server named it.
        case writeLimited(retryAfter: Duration?)
        /// Any other 403 (a disabled or unverified account, say).
        case denied
        /// 429, or 503 with `Retry-After`: the server's rate limit.
        case rateLimited(retryAfter: Duration?)
        /// 404 with a gitbay answer.
        case notFound
        /// The server has push notifications turned off.
        case pushDisabled
        /// The server did not accept the command line.
        case usage
        /// Any other failure the server reported (another `exit_code`, a 5xx).
        case serverFailure
        /// The answer is not JSON: the API is off, or something else answered.
        case notJSON
        /// The answer is JSON but not a gitbay reply.
        case malformed
        /// The answer speaks another major protocol version.
        case protocolVersion(Int)
        /// No answer at all.
        case transport(TransportError)
    }

    public let kind: Kind
    /// The command's words, e.g. `["notifications", "device", "add"]`; never argument values.
    public let command: [String]
    public let httpStatus: Int?
    public let exitCode: Int?
    /// The server's own message, token-like words redacted; nil when it gave none.
    public let serverMessage: String?
    /// What failed, in the engine's words.
    public let description: String

    init(_ error: GitbayError) {
        kind = Self.kind(error.kind)
        command = error.command
        httpStatus = error.httpStatus
        exitCode = error.exitCode
        serverMessage = error.serverMessage
        description = error.description
    }

    private static func kind(_ kind: GitbayError.Kind) -> Kind {
        switch kind {
        case .authFailed: .authFailed
        case .readOnlyToken: .readOnlyToken
        case .writeLimited(let wait): .writeLimited(retryAfter: wait)
        case .denied: .denied
        case .rateLimited(let wait): .rateLimited(retryAfter: wait)
        case .notFound: .notFound
        case .pushDisabled: .pushDisabled
        case .usage: .usage
        case .serverFailure: .serverFailure
        case .notJSON: .notJSON
        case .malformed: .malformed
        case .protocolVersion(let version): .protocolVersion(version)
        case .transport(let error): .transport(error)
        }
    }
}

/// Why the token store holding an account's API token could not do what was asked: the
/// store did not answer, or answered that it cannot, so what it holds is unknown.
public enum GitbayTokenStoreFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store's library could not be opened.
    case libraryMissing(path: String, detail: String)
    /// No D-Bus session bus to reach (Linux's Secret Service).
    case noSessionBus(detail: String)
    /// The session bus has no Secret Service on it.
    case noService(detail: String)
    /// The store is locked.
    case locked
    /// There is no default keyring to store into.
    case noKeyring
    /// The store did not answer within the time allowed.
    case timedOut(Duration)
    /// The store failed; `detail` is what its error said (an app's own store: its error).
    case failed(detail: String)

    init(_ reason: KeyringUnavailable) {
        switch reason {
        case .libraryMissing(let path, let detail): self = .libraryMissing(path: path, detail: detail)
        case .noSessionBus(let detail): self = .noSessionBus(detail: detail)
        case .noService(let detail): self = .noService(detail: detail)
        case .locked: self = .locked
        case .noKeyring: self = .noKeyring
        case .timedOut(let limit): self = .timedOut(limit)
        case .failed(let detail): self = .failed(detail: detail)
        }
    }

    private var core: KeyringUnavailable {
        switch self {
        case .libraryMissing(let path, let detail): .libraryMissing(path: path, detail: detail)
        case .noSessionBus(let detail): .noSessionBus(detail: detail)
        case .noService(let detail): .noService(detail: detail)
        case .locked: .locked
        case .noKeyring: .noKeyring
        case .timedOut(let limit): .timedOut(limit)
        case .failed(let detail): .failed(detail: detail)
        }
    }

    public var description: String { core.description }
}

/// Why the state database could not be opened or used.
public struct GitbayDatabaseFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with it.
    public enum Kind: Sendable, Equatable {
        /// The file is not a SQLite database, or is corrupt.
        case notADatabase
        /// A newer version wrote it; it was left unchanged.
        case newerSchema
        /// It records a migration this build knows differently.
        case changedMigration
        /// Another user owns it.
        case foreignOwner
        /// Other users can write it.
        case writableByOthers
        /// It, a file beside it or its folder is a symbolic link.
        case symbolicLink
        /// Its folder would be made inside another user's.
        case foreignFolder
        /// There is none at the path.
        case noDatabase
        /// It cannot be created or written.
        case notWritable
        /// Another process held it locked for longer than the wait.
        case busy
        /// Another SQLite failure, by its extended result code.
        case sqlite(code: Int32)
    }

    public let kind: Kind
    /// The file it concerns.
    public let path: String
    /// What is wrong and what fixes it, in the engine's words.
    public let description: String

    init(_ error: StoreError) {
        description = error.description
        (kind, path) =
            switch error {
            case .notADatabase(let path, _): (.notADatabase, path)
            case .newerSchema(let path, _): (.newerSchema, path)
            case .changedMigration(let path, _, _): (.changedMigration, path)
            case .foreignOwner(let path, _): (.foreignOwner, path)
            case .writableByOthers(let path, _): (.writableByOthers, path)
            case .symbolicLink(let path): (.symbolicLink, path)
            case .foreignFolder(let path, _, _): (.foreignFolder, path)
            case .noDatabase(let path): (.noDatabase, path)
            case .notWritable(let path, _): (.notWritable, path)
            case .busy(let path): (.busy, path)
            case .sqlite(let error, let path): (.sqlite(code: error.code), path)
            }
    }
}
