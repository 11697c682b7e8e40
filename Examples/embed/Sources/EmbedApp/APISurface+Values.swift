// Compiled, never run: every value the engine hands an app, read field by field and case by
// case, as a screen that words them would (see APISurface+Engine.swift).
import GitbaySyncKit

extension APISurface {
    static func read(_ result: GitbayAccountResult) {
        _ = (result.id, result.name, result.instance, result.sshDestination, result.deviceID, result.shadowedBy, result.nextRetryAt)
        _ = (result.action.rawValue, result.condition.rawValue, GitbayAction(rawValue: "added"), GitbayCondition(rawValue: "paused"))
        _ = (result.failure.map(words), result.skipReason.map(words), result.notChecked?.rawValue, result.retryReason?.rawValue)
        _ = (result.removal.map(words), result.stopped, result.requests, result.writes, result.failed, result.succeeded)
        _ = result.needsAttention
        if let renewal = result.tokenRenewal {
            _ = (renewal.predecessor, renewal.successor, renewal.predecessorRevoked, renewal.revoked)
            _ = (renewal.failure.map(words), renewal.tokenStoreFailure.map(words))
        }
    }

    static func read(_ status: GitbayAccountStatus) {
        _ = (status.id, status.account.state.rawValue, GitbayAccountState(rawValue: "removing"), status.condition, status.deviceID)
        _ = (status.lastFailure.map(words), status.nextAttemptAt, status.retryReason, status.checkedAt, status.succeededAt)
        _ = (status.notChecked, status.notCheckedSince, GitbayNotCheckedReason(rawValue: "heldElsewhere"), GitbayRetryReason(rawValue: "backoff"))
        _ = GitbayFileProtection.allCases.map(\.rawValue)
        _ = GitbayLogRecord.Level.warning < .error
    }

    static func words(_ failure: GitbayFailure) -> String {
        switch failure {
        case .server(let server):
            "\(words(server.kind)) \(server.command) \(server.httpStatus ?? 0) \(server.exitCode ?? 0) \(server.serverMessage ?? "")"
        case .earlierRun(let recorded): recorded
        case .database(let database): "\(words(database.kind)) \(database.path)"
        case .tokenStore(let store): words(store)
        case .removalStep(let message), .other(let message): message
        case .stopped, .notReconciled, .unusableUsername: failure.description
        case .tokenStillAccepted(let name, let nameKnown): "\(name) \(nameKnown)"
        }
    }

    static func words(_ kind: GitbayServerFailure.Kind) -> String {
        switch kind {
        case .authFailed, .readOnlyToken, .denied, .notFound, .pushDisabled, .usage, .serverFailure, .notJSON, .malformed: "\(kind)"
        case .writeLimited(let wait), .rateLimited(let wait): "\(kind) \(wait.map { "\($0)" } ?? "")"
        case .protocolVersion(let version): "\(version)"
        case .transport(let error): words(error)
        }
    }

    static func words(_ error: TransportError) -> String {
        switch error {
        case .connectFailed(let why, let detail):
            switch why {
            case .hostNotFound, .refused: "\(why) \(detail)"
            }
        case .timedOut(let phase, let limit):
            switch phase {
            case .connect, .request, .deadline: "\(phase) \(limit)"
            }
        case .cancelled: "cancelled"
        case .connectionLost(let detail), .tlsFailed(let detail): detail
        case .insecureURL(let scheme, let host): "\(scheme) \(host)"
        case .invalidRequest(let reason): reason
        case .libcurlUnavailable(let path, let detail): "\(path) \(detail)"
        case .other(let code, let message): "\(code) \(message)"
        case .redirect(let status, let target): "\(status) \(target ?? "")"
        case .responseTooLarge(let limit): "\(limit)"
        }
    }

    static func words(_ kind: GitbayDatabaseFailure.Kind) -> String {
        switch kind {
        case .notADatabase, .newerSchema, .changedMigration, .foreignOwner, .writableByOthers, .symbolicLink, .foreignFolder, .noDatabase,
            .notWritable, .busy:
            "\(kind)"
        case .sqlite(let code): "\(code)"
        }
    }

    static func words(_ failure: GitbayTokenStoreFailure) -> String {
        switch failure {
        case .libraryMissing(let path, let detail): "\(path) \(detail)"
        case .noSessionBus(let detail), .noService(let detail), .failed(let detail): detail
        case .locked, .noKeyring: failure.description
        case .timedOut(let limit): "\(limit)"
        }
    }

    static func words(_ reason: GitbaySkipReason) -> String {
        switch reason {
        case .backingOff, .keptChanging, .removalTokenRefused, .signedInAgain, .signedOutDuringRun, .tokenRefused: "\(reason)"
        case .heldElsewhere(let pid, let since): "\(pid) \(since)"
        case .tokenStoreUnavailable(let failure): words(failure)
        }
    }

    static func words(_ removal: GitbayRemoval) -> String {
        switch removal {
        case .removed(let token): words(token)
        case .removedByForce(let rowsLeft, let hold, let token): "\(rowsLeft) \(words(hold)) \(words(token))"
        case .kept(let hold): words(hold)
        case .busy(let pid): "\(pid)"
        case .interrupted, .signedInAgain: "\(removal.isRemoved)"
        }
    }

    static func words(_ hold: GitbayRemovalHold) -> String {
        switch hold {
        case .deregistrationFailed(let failure): words(failure)
        case .removalStepFailed(let message): message
        case .revocationFailed(let name, let failure): "\(name) \(words(failure))"
        case .tokenStillValid(let name, let nameKnown): "\(name) \(nameKnown)"
        }
    }

    static func words(_ token: GitbayTokenRevocation) -> String {
        let current =
            switch token.current {
            case .revoked(let name), .notRevoked(let name): name
            case .refused(let name), .unread(let name): name ?? ""
            case .stillValid(let name, let nameKnown): "\(name) \(nameKnown)"
            case .unnamed: ""
            }
        return "\(current) \(token.staleLeft) \(token.itemsLeft)"
    }

    static func words(_ error: GitbaySignInError) -> String {
        switch error {
        case .badInstance(let reason), .unusableUsername(let reason): reason
        case .tokenRefused, .readOnlyToken, .notGitbay: "\(error)"
        case .alreadySignedIn(let twin): twin.name
        case .tokenStoreUnavailable(let failure): words(failure)
        case .busy(let pid): "\(pid)"
        case .failed(let failure): words(failure)
        }
    }

    static func words(_ error: GitbayPayloadError) -> String {
        switch error {
        case .badInstance, .empty, .notAnObject, .notJSON: "\(error)"
        case .missing(let field), .wrongType(let field): field
        }
    }
}
