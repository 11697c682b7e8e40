// The transport seam an app uses, re-exported whole: its types and their members are
// reachable from `import GitbaySyncKit` alone, under MemberImportVisibility too. HTTPTransport,
// HTTPRequest, HTTPResponse, TransportConfiguration, TransportError and TransportTransfer come
// from GitbayAPI; URLSessionTransport (Foundation on Apple platforms, FoundationNetworking on
// Linux) from GitbayURLSession.
@_exported import GitbayAPI
@_exported import GitbayURLSession

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
