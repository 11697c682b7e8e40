import GitbayReconcile
import GitbaySupport

extension CommandRunner {
    /// `hook`, when a pre-remove hook is installed: the rule it must pass to be run (see
    /// `PreRemovalHook.trustProblem`).
    static func hookCheck(_ hook: PreRemovalHook) -> DoctorCheck {
        guard let problem = hook.trustProblem else {
            return .pass("hook", hook.path, "yours, and no one else can change it or its folder: it runs at remove-account")
        }
        return .fail("hook", hook.path, "\(problem), so it is not run", fix: problem.fix)
    }

    /// `service.units` failed when someone else could change the unit folder; nil when no one
    /// can (or there is no folder yet).
    static func unsafeFolderCheck(_ folder: UnitFolder, subject: String) -> DoctorCheck? {
        guard let problem = folder.trustProblem else { return nil }
        return .fail(
            "service.units", subject,
            "\(problem), so someone else could change the units that run as you; `service install` writes nothing there",
            fix: problem.fix)
    }
}
