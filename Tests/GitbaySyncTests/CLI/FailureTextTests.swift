import Testing

@testable import GitbayAPI
@testable import GitbayKeyring
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySync

/// An account's failure reaches the command line as a value, and the command line says it in
/// its own words: the core's, with this program named where the state database's writer is.
@Suite("An account's failure, in the command line's words")
struct FailureTextTests {
    @Test("this device's failures are kept as values, not as their text")
    func localFailuresAreValues() {
        #expect(AccountFailure(StoreError.busy(path: "/s.db")) == .local(.store(.busy(path: "/s.db"))))
        #expect(AccountFailure(KeyringUnavailable.locked) == .local(.keyring(.locked)))
        #expect(AccountFailure(CancellationError()) == .local(.stopped))
        let refused = GitbayError(kind: .authFailed, account: "alice@127.0.0.1", command: ["notifications", "device", "list"])
        #expect(AccountFailure(refused) == .server(refused))
    }

    @Test("a state database locked by another process names gitbay-sync on the command line, no program in the core")
    func lockedDatabaseNamesTheProgram() {
        let failure = AccountFailure.local(.store(.busy(path: "/s.db")))
        #expect(FailureText.said(failure).contains("(another gitbay-sync, or a tool with it open)"))
        #expect(!failure.description.contains("gitbay-sync"))
    }
}
