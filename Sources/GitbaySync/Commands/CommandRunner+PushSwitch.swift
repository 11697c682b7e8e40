import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CommandRunner {
    /// `push on|off <account>`: sets the account's server-side push switch, and records the
    /// choice with the account so that `status` shows it. It needs an account signed in here,
    /// so it creates no database.
    func setPush(_ on: Bool, account name: String) async throws -> ExitCode {
        let store = try await openExistingStore()
        let account = try await account(named: name, in: store)
        let settings = try await fanOut(store).run([account]) { client in try await client.setPush(on) }[0].outcome.get()
        guard settings.push == on else {
            throw CommandFailure(
                "\(account.name): the server still reports push \(settings.push ? "on" : "off") after `notifications settings push \(on ? "on" : "off")`",
                exitCode: .unavailable)
        }
        try await store.setPushOff(!on, ofAccount: account.id)
        show(
            ReportedOutput(
                json: .object([("account", .string(account.name)), ("push", .bool(settings.push))]),
                text: [
                    settings.push
                        ? "Push notifications for \(escaped: account.name) are on."
                        : "Push notifications for \(escaped: account.name) are off: its devices stay registered, and the server sends nothing until `\(escaped: ShellWords.gitbaySync("push", "on", account.name))`."
                ]
            ))
        return .success
    }
}
