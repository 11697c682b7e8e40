import GitbayState
import PushResolve

/// A tapped push, resolved: the signed-in account it is for, and the screen it points at.
public struct GitbayPush: Sendable, Equatable {
    public let account: GitbayAccount
    /// The screen to open; nil when the app has none for the push's path.
    public let destination: GitbayPushDestination?
    /// The push's path as sent, e.g. `owner/repo/issues/1`.
    public let path: String
    /// The unread inbox count (`aps.badge`), 0 when absent.
    public let badge: Int
    /// The web page the destination names on the account's server.
    public let webURL: String?
}

/// The screen a push points at: an issue, a merge request or a build of a repository.
public struct GitbayPushDestination: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case issue, mergeRequest = "mr", build
    }

    public let kind: Kind
    public let owner: String
    public let repository: String
    public let number: Int

    public init(kind: Kind, owner: String, repository: String, number: Int) {
        self.kind = kind
        self.owner = owner
        self.repository = repository
        self.number = number
    }

    init(_ destination: PushDestination) {
        let kind: Kind =
            switch destination.kind {
            case .issue: .issue
            case .mr: .mergeRequest
            case .build: .build
            }
        self.init(kind: kind, owner: destination.owner, repository: destination.repository, number: destination.number)
    }
}

/// Why a push payload cannot be read.
public enum GitbayPayloadError: Error, Sendable, Equatable {
    /// Nothing but whitespace.
    case empty
    case notJSON
    case notAnObject
    /// A required field (`instance`, `user`, `path`) is absent, null or empty.
    case missing(field: String)
    /// A field has the wrong JSON type.
    case wrongType(field: String)
    /// `instance` is not a server URL the engine accepts.
    case badInstance

    init(_ error: PayloadError) {
        switch error {
        case .empty: self = .empty
        case .notJSON: self = .notJSON
        case .notAnObject: self = .notAnObject
        case .missing(let field): self = .missing(field: field)
        case .wrongType(let field, _): self = .wrongType(field: field)
        case .badInstance: self = .badInstance
        }
    }
}

extension GitbayPushSync {
    /// The account a push payload (the notification's JSON, as `userInfo` holds it) is for, and
    /// where it points: the same server, under any of its names the engine canonicalises, and
    /// the same user. Nil for an account not signed in or being signed out. Reads the database
    /// only.
    public func resolvePush(_ payloadJSON: String) async throws -> GitbayPush? {
        let payload: PushPayload
        do { payload = try PushPayload(decoding: payloadJSON) } catch { throw GitbayPayloadError(error) }
        return try await withEngine(changing: false) { engine in
            let accounts = try await engine.store.accounts()
            guard let record = accounts.first(where: { $0.state != .removing && $0.instance == payload.instance && $0.username == payload.user })
            else { return nil }
            let destination = payload.destination
            return GitbayPush(
                account: GitbayAccount(record), destination: destination.map(GitbayPushDestination.init), path: payload.path,
                badge: payload.badge, webURL: destination?.webURL(on: record.instance))
        }
    }
}
