import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `device clear`.
struct DeviceClearCommand: PlainCommand {
    static let sendsRequests = true

    static let spec = CommandSpec(
        words: ["device", "clear"], group: .thisDevice, arguments: [], options: [],
        summary: "Deregister this device everywhere and forget its token.",
        discussion: "Removes this device's rows on every account, then forgets the token.",
        examples: [
            .init("This device is retired: deregister it on every server and forget its token", ["device", "clear"])
        ]
    )

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.clearDevice()
    }
}

extension CommandRunner {
    /// `device clear`: forget the token, then deregister this device everywhere.
    fileprivate func clearDevice() async throws -> ExitCode {
        let store = try await openStore()
        let accounts = try await store.accounts()
        let result = try await liveReconcile(store, order: accounts) { try await $0.clearDeviceToken() }
        let text = Self.clearedText(result.outcomes, of: accounts)
        let device = try await store.device().json
        return try showLive(result, ReconciledOutput(fields: [("device", device)], outcomes: result.outcomes, text: [text]), among: accounts)
    }

    /// What `device clear` did: which servers may still have a row (an account that failed,
    /// was skipped, or was not done before a stop); the lines below say why and what ends it.
    private static func clearedText(_ outcomes: [SaidOutcome], of accounts: [AccountRecord]) -> String {
        let done = Set(outcomes.filter { $0.action != .failed && $0.action != .skipped }.map(\.accountID))
        let left = accounts.filter { !done.contains($0.id) }.map { TerminalText.escaped($0.name) }
        guard !left.isEmpty else { return "Device token forgotten; this device's rows are removed from every account." }
        return
            "Device token forgotten; this device's rows are removed from \(done.count) of \(accounts.count) account\(accounts.count == 1 ? "" : "s"), "
            + "not yet from \(left.joined(separator: ", ")) (below)."
    }
}
