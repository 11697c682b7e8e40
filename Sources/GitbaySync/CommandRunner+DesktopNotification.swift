import GitbayReconcile
import GitbayState
import GitbaySupport

extension CommandRunner {
    /// How long notify-send (or osascript) may take before it is stopped.
    static let notificationTimeout: Duration = .seconds(10)

    /// What an unattended pass compares its outcomes with: each account's condition as read
    /// before the pass. Nil when notifications are off or there is no desktop to show them on,
    /// so that such a run reads nothing more.
    func notificationBaseline(_ store: StateStore, notify: Bool) async -> [Int64: DesktopNotification.Before]? {
        guard notify, DesktopNotification.hasDesktop(.current, environment: context.environment) else { return nil }
        guard let facts = try? await store.accountFacts() else { return nil }
        let pairs = facts.accounts.map { account in
            (
                account.id,
                DesktopNotification.Before(
                    condition: facts.statuses[account.id]?.condition ?? .pending, unchecked: facts.statuses[account.id]?.unchecked)
            )
        }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// Raises one desktop notification for each account the pass left newly needing the user.
    /// A missing or failing program changes nothing of the run: a debug line says so.
    func raiseNotifications(before: [Int64: DesktopNotification.Before]?, _ outcomes: [SaidOutcome]) async {
        guard let before else { return }
        let platform = ServiceUnits.Platform.current
        let notifications = DesktopNotification.newFailures(before: before, outcomes.map(\.outcome)).map(DesktopNotification.init)
        guard !notifications.isEmpty else { return }
        let (name, variable) = DesktopNotification.program(platform)
        let program: NamedProgram
        switch NamedProgram.resolve(name, variable: variable, environment: context.environment) {
        case .success(let found): program = found
        case .failure(let failure):
            logger.debug("notify: no notification raised: \(failure)")
            return
        }
        for notification in notifications {
            let child = ChildProgram(
                path: program.path, argv: program.words + notification.arguments(platform), environment: context.environment,
                timeout: Self.notificationTimeout)
            switch await child.run(shutdown: context.shutdown) {
            case .success(let ending) where ending.status == 0:
                logger.debug("notify: raised for \(notification.account)")
            case .success(let ending):
                logger.debug("notify: \(program.words[0]) exited \(ending.status) for \(notification.account)")
            case .failure(let failure):
                logger.debug("notify: \(program.words[0]) did not run for \(notification.account): \(failure)")
            }
        }
    }
}
