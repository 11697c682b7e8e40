import GitbaySupport

extension CommandRunner {
    /// `service.units` when nothing is installed (an autostart entry passes), or when no
    /// systemd user manager runs the units that are; nil otherwise, for the checks of the
    /// units themselves.
    func unitsCheckWithoutManager(_ installed: InstalledService, subject: String) -> DoctorCheck? {
        let platform = installed.platform
        let enable = ServiceUnits.enableCommand(platform)
        // Where systemd does not run the system, no user manager runs units: what works is
        // `run --every` under a supervisor, or an autostart entry in a desktop session.
        let unmanaged = platform == .systemd && !context.systemdBooted()
        let elsewhere =
            "`gitbay-sync run --every 15m` under a supervisor of your own, or in a desktop session `gitbay-sync service install --autostart`"
        if installed.isAbsent {
            let autostart = AutostartEntry.folder(environment: context.environment).filePath(AutostartEntry.fileName)
            if let entry = UnitFolder.readText(autostart), ServiceUnits.isGenerated(entry) {
                return .pass(
                    "service.units", autostart,
                    "an autostart entry starts `gitbay-sync run --every` in your desktop session at login (no service units)")
            }
            let what = platform == .systemd ? "no gitbay-sync units" : "no gitbay-sync launchd agent"
            return .warn(
                "service.units", subject, "\(what): nothing runs gitbay-sync at login or on a timer",
                fix: unmanaged
                    ? "no systemd user manager runs here (\(SystemdPresence.marker) is absent); to keep the registration true without you: \(elsewhere)"
                    : "to keep the registration true without you: `gitbay-sync service install`, then `\(enable)`; nothing to do if you run `gitbay-sync run` yourself, or `run --every` under a supervisor of your own"
            )
        }
        if unmanaged {
            return .warn(
                "service.units", subject,
                "installed, but no systemd user manager runs here (\(SystemdPresence.marker) is absent: the system was not started by systemd), so nothing runs them",
                fix: elsewhere)
        }
        return nil
    }
}
