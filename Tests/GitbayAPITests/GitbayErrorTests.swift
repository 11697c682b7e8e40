import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbaySupport

@Suite("GitbayError")
struct GitbayErrorTests {
    static let token = "gb_Zx81kQ0pLm4TnVb7sW2yR9cE"

    static let kinds: [GitbayError.Kind] = [
        .authFailed, .readOnlyToken, .writeLimited(retryAfter: .seconds(12)), .writeLimited(retryAfter: nil), .denied,
        .rateLimited(retryAfter: .seconds(3)), .notFound, .pushDisabled, .usage, .serverFailure, .notJSON, .malformed,
        .protocolVersion(2), .transport(.connectFailed(.refused, detail: "Failed to connect to gitbay.test port 443")),
        .transport(.timedOut(.request, limit: .milliseconds(300))), .transport(.redirect(status: 302, target: "https://evil.test/x")),
        .transport(.cancelled), .transport(.insecureURL(scheme: "http", host: "gitbay.test")),
    ]

    @Test("the description names the account and the command and never echoes a token", arguments: kinds)
    func description(_ kind: GitbayError.Kind) {
        let error = GitbayError(
            kind: kind, account: "alice@gitbay.test", command: ["notifications", "device", "add"], httpStatus: 403,
            exitCode: 4, serverMessage: "token \(Self.token) is not allowed; also gb_abc-DEF_123."
        )
        let text = error.description
        #expect(text.contains("alice@gitbay.test"))
        #expect(text.contains("notifications device add"))
        #expect(!text.contains(Self.token))
        #expect(!text.contains("gb_abc"))
        #expect(!(error.serverMessage ?? "").contains(Self.token))
        #expect(!String(describing: error).contains(Self.token))
        #expect(!String(reflecting: error).contains(Self.token))
    }

    @Test(
        "token-like words are redacted",
        arguments: [
            ("invalid token gb_abc123", "invalid token gb_<redacted>"),
            ("gb_x-y_z, then more", "gb_<redacted>, then more"),
            ("no token here", "no token here"),
            ("two gb_a and gb_b!", "two gb_<redacted> and gb_<redacted>!"),
        ])
    func redaction(_ message: String, _ expected: String) {
        #expect(GitbayError.redactingTokens(in: message) == expected)
    }

    @Test("the description says what failed and what the user can do, and names no program's command")
    func remedies() {
        let auth = GitbayError(kind: .authFailed, account: "alice@gitbay.test", command: ["whoami"], httpStatus: 401)
        #expect(auth.description == "alice@gitbay.test: `whoami` failed: the API token is no longer valid (HTTP 401).")
        let readOnly = GitbayError(kind: .readOnlyToken, account: "alice@gitbay.test", command: ["notifications", "device", "add"])
        #expect(readOnly.description.contains("read-only; this needs a full-scope one"))
        let kinds: [GitbayError.Kind] = [
            .authFailed, .readOnlyToken, .writeLimited(retryAfter: nil), .denied, .rateLimited(retryAfter: nil), .notFound, .pushDisabled,
            .usage, .serverFailure, .notJSON, .malformed, .protocolVersion(2), .transport(.cancelled),
        ]
        for kind in kinds {
            let text = GitbayError(kind: kind, account: "a@b", command: ["x"]).description
            #expect(!text.contains("gitbay-sync") && !text.contains("--"), "\(text)")
        }
        let limited = GitbayError(kind: .writeLimited(retryAfter: .seconds(90)), account: "a@b", command: ["x"])
        #expect(limited.description.contains("1m30s"))
        #expect(limited.retryAfter == .seconds(90))
        let redirect = GitbayError(kind: .transport(.redirect(status: 302, target: "https://other.test/login")), account: "a@b", command: ["x"])
        #expect(redirect.description.contains("https://other.test/login"))
        // A 404 refused before dispatch (no exit_code): the server does not know the command.
        let unknown = GitbayError(
            kind: .notFound, account: "a@b", command: ["notifications", "device", "list"], httpStatus: 404,
            serverMessage: "unknown command \"notifications device list\"")
        #expect(unknown.description.contains("older than gitbay's device commands"))
        let missing = GitbayError(kind: .notFound, account: "a@b", command: ["notifications", "device", "remove"], httpStatus: 404, exitCode: 3)
        #expect(!missing.description.contains("older"))
    }

    @Test("no error description promises that something retries it", arguments: kinds)
    func noPromisedRetry(_ kind: GitbayError.Kind) {
        let error = GitbayError(kind: kind, account: "alice@gitbay.test", command: ["notifications", "device", "list"], httpStatus: 500)
        #expect(!error.description.contains("retried"), "\(error.description)")
    }
}
