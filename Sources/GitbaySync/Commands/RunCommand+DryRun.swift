import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunCommand {
    static let dryRun = CommandSpec.Option(
        name: "--dry-run", valueName: nil,
        help: "Say what the run would add, remove, adopt and forget, account by account; only lists are sent, nothing is written.")
}

extension CommandRunner {
    /// `run --dry-run`: each account's plan, from lists sent as a run would send them; nothing
    /// is written to a server or the database. Exits 1 when a list failed, as the run would.
    func dryRun(concurrency: Int?, now: Bool) async throws -> ExitCode {
        let store = try await openExistingStore()
        let plans = try await reconciler(store, concurrency: concurrency, honourBackoff: !now).plans()
        show(DryRunOutput(plans: plans, now: context.now()))
        return plans.contains { $0.failure != nil } ? .partialFailure : .success
    }
}

/// What `run --dry-run` prints.
struct DryRunOutput: CommandOutput {
    let plans: [AccountPlan]
    /// The time waits are said against.
    let now: Date

    var json: JSONValue {
        .object([
            ("dry_run", .bool(true)), ("ok", .bool(!plans.contains { $0.failure != nil })),
            ("accounts", .array(plans.map(json))),
        ])
    }

    var text: [String] {
        guard !plans.isEmpty else { return ["No accounts. Sign in with `gitbay-sync login <instance-url>`."] }
        let width = plans.map { TerminalText.escaped($0.account).count }.max() ?? 0
        return plans.map { plan in
            let name = TerminalText.escaped(plan.account)
            return name + String(repeating: " ", count: width - name.count) + "  " + said(plan)
        } + ["Dry run: only lists were sent and nothing was written; `gitbay-sync run` does this."]
    }

    private func said(_ plan: AccountPlan) -> String {
        if let failure = plan.failure { return "cannot tell: \(TerminalText.escaped(FailureText.said(failure)))" }
        if let skip = plan.skipReason {
            var outcome = AccountOutcome(
                accountID: plan.accountID, account: plan.account, instance: plan.instance, action: .skipped, condition: .pending,
                skipReason: skip)
            outcome.sshDestination = plan.sshDestination
            return "left alone: " + (SkipReasonText.worded(SaidOutcome(outcome), now: now).reason ?? "skipped")
        }
        var steps = plan.actions.map(Self.words)
        if plan.finishesRemoval { steps.append("then finish its removal (the pre-remove hook, then the API token revoked if named, then deleted)") }
        return steps.isEmpty ? "nothing to do" : "would " + steps.joined(separator: ", ")
    }

    private static func words(_ action: PlannedAction) -> String {
        switch action {
        case .add(let settling) where settling.isEmpty: "add this device's token"
        case .add(let settling): "add this device's token, keeping one of rows \(settling.map(String.init).joined(separator: ", "))"
        case .adopt(let id): "record row \(id) as this device's"
        case .remove(let id, let reason): "remove row \(id) (\(reason.rawValue))"
        case .forget(let id, let reason): "forget row \(id) (\(reason.rawValue))"
        }
    }

    private func json(_ plan: AccountPlan) -> JSONValue {
        .object([
            ("account", .string(plan.account)),
            ("actions", .array(plan.actions.map(Self.json))),
            ("skipped", .optional(plan.skipReason.map { _ in said(plan) })),
            ("finishes_removal", .bool(plan.finishesRemoval)),
            ("error", .optional(plan.failure.map(FailureText.said))),
        ])
    }

    private static func json(_ action: PlannedAction) -> JSONValue {
        switch action {
        case .add(let settling): .object([("action", .string("add")), ("settling", .array(settling.map(JSONValue.int)))])
        case .adopt(let id): .object([("action", .string("adopt")), ("device_id", .int(id))])
        case .remove(let id, let reason): .object([("action", .string("remove")), ("device_id", .int(id)), ("reason", .string(reason.rawValue))])
        case .forget(let id, let reason): .object([("action", .string("forget")), ("device_id", .int(id)), ("reason", .string(reason.rawValue))])
        }
    }
}
