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
        let outcomes = worded(try await engine(store).clearDeviceToken())
        show(ReconciledOutput(fields: [("device", try await store.device().json)], outcomes: outcomes, text: [Self.clearedText(outcomes)]))
        return report(outcomes)
    }

    /// What `device clear` did: which servers may still have a row; the lines below say why
    /// and what ends it.
    private static func clearedText(_ outcomes: [SaidOutcome]) -> String {
        let left = outcomes.filter { $0.action == .failed || $0.action == .skipped }.map { TerminalText.escaped($0.account) }
        guard !left.isEmpty else { return "Device token forgotten; this device's rows are removed from every account." }
        return
            "Device token forgotten; this device's rows are removed from \(outcomes.count - left.count) of \(outcomes.count) account\(outcomes.count == 1 ? "" : "s"), "
            + "not yet from \(left.joined(separator: ", ")) (below)."
    }
}
