/// An account the app has signed in, as `GitbayPushSync.adopt(_:)` takes it: its server, its
/// user, and the API token the app verified it with. The token is never shown: a description
/// names the server and user only.
public struct GitbayAppAccount: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The server's URL, e.g. `https://gitbay.org`.
    public let instance: String
    /// The user the app verified the token signs in as.
    public let username: String
    let apiToken: String

    public init(instance: String, username: String, apiToken: String) {
        self.instance = instance
        self.username = username
        self.apiToken = apiToken
    }

    /// The account's name as the engine gives it (`GitbayAccount.name`), nil for an instance
    /// the engine does not accept.
    public var name: String? { GitbayAccount.name(instance: instance, username: username) }

    public var description: String { name ?? "\(username) at \(instance)" }
    public var debugDescription: String { "GitbayAppAccount(\(description), apiToken: <redacted>)" }
    /// Server and user only, so that `dump` leaves the token out too.
    public var customMirror: Mirror { Mirror(self, children: ["instance": instance, "username": username]) }
}

/// What `GitbayPushSync.adopt(_:)` did to bring the engine's accounts in line with the app's.
public struct GitbayAdoption: Sendable, Equatable {
    /// An account of the app that could not be signed in, and why; nothing was stored for it.
    public struct Refused: Sendable, Equatable {
        public let account: GitbayAppAccount
        public let error: GitbaySignInError
    }

    /// The app's accounts the engine did not have (or was signing out), signed in now.
    public let signedIn: [GitbaySignIn]
    /// The engine's accounts the app no longer has, each signed out as `signOut` does. One
    /// whose removal could not finish (its server down, the app's removal step failing) is
    /// kept `removing` with its token, and a later `reconcile()` or `adopt` finishes it.
    public let signedOut: [GitbaySignOut]
    /// The app's accounts the engine had already, left as they were (a paused one stays paused).
    public let kept: [GitbayAccount]
    /// The app's accounts that could not be signed in.
    public let refused: [Refused]

    /// True when every account the app has is signed in and every other one is removed.
    public var isComplete: Bool { refused.isEmpty && signedOut.allSatisfy(\.removal.isRemoved) }
}
