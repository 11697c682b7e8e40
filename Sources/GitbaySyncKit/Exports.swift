import GitbayAPI
import GitbayURLSession

/// How an app's requests reach gitbay servers: URLSession (`URLSessionTransport`) or its own,
/// one request at a time, a redirect never followed, cancellation honoured.
public typealias HTTPTransport = GitbayAPI.HTTPTransport
/// A request a transport sends, and what it answers.
public typealias HTTPRequest = GitbayAPI.HTTPRequest
public typealias HTTPResponse = GitbayAPI.HTTPResponse
/// The limits a transport enforces per request, and how it fails.
public typealias TransportConfiguration = GitbayAPI.TransportConfiguration
public typealias TransportError = GitbayAPI.TransportError
/// An exchange a transport started, to cancel it.
public typealias TransportTransfer = GitbayAPI.TransportTransfer
/// The URLSession transport (Foundation on Apple platforms, FoundationNetworking on Linux).
public typealias URLSessionTransport = GitbayURLSession.URLSessionTransport

/// The registrar's earlier name.
@available(*, deprecated, renamed: "GitbayPushSync")
public typealias PushRegistrar = GitbayPushSync
/// The signed-in account's earlier name.
@available(*, deprecated, renamed: "GitbayAccount")
public typealias Account = GitbayAccount
/// The per-account result's earlier name.
@available(*, deprecated, renamed: "GitbayAccountResult")
public typealias AccountReport = GitbayAccountResult
@available(*, deprecated, renamed: "GitbaySignInError")
public typealias SignInError = GitbaySignInError
@available(*, deprecated, renamed: "GitbayAccountNotFound")
public typealias AccountNotFound = GitbayAccountNotFound
