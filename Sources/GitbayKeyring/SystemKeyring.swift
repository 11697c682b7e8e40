/// The OS keyring of the platform this runs on.
package enum SystemKeyring {
    /// The login Keychain on macOS; the Secret Service of `environment`'s session bus
    /// elsewhere (`unlocking` lets it prompt to unlock a locked keyring, within `timeout`; the
    /// Keychain's own prompts are the system's to show).
    package static func make(environment: [String: String], timeout: Duration = .seconds(10), unlocking: Bool = false) -> any TokenKeyring {
        #if canImport(Security)
        KeychainTokens(timeout: timeout)
        #else
        SecretServiceKeyring(environment: environment, timeout: timeout, unlocking: unlocking)
        #endif
    }
}
