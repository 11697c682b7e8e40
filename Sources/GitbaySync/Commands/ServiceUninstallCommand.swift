import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `service uninstall [--force]`.
struct ServiceUninstallCommand: CommandDefinition {
    static let force = CommandSpec.Option(
        name: "--force", valueName: nil, help: "Also remove unit files of those names that `service install` did not write.")

    static let spec = CommandSpec(
        words: ["service", "uninstall"], group: .running, arguments: [], options: [force],
        summary: "Stop and remove what `service install` wrote.",
        discussion:
            "Where a systemd user manager runs, first stops and disables the timer and the service (`systemctl --user disable --now`); then removes the service and timer units (or the launchd agent, taken out of launchd first) and the links `systemctl enable` made, and the autostart entry of `service install --autostart`; then has the manager forget them (`daemon-reload`, `reset-failed`), so nothing of gitbay-sync stays loaded. A file of the same name that `service install` did not write is left alone (exit 78, nothing done) unless --force.",
        examples: [
            .init("Stop running at login and on the timer", ["service", "uninstall"])
        ]
    )

    let force: Bool

    init(force: Bool = false) {
        self.force = force
    }

    init(_ input: CommandInput) throws(UsageError) {
        force = input.isSet(Self.force)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.serviceUninstall(force: force)
    }
}

extension CommandRunner {
    /// Stops and disables the units where a service manager runs them, then removes them and
    /// has the manager forget them. A file of the same name that `service install` did not
    /// write is left alone, and then nothing is done, unless `force`.
    fileprivate func serviceUninstall(force: Bool) async throws -> ExitCode {
        let platform = ServiceUnits.Platform.current
        let folder = UnitFolder.resolve(platform, environment: context.environment)
        let files = ServiceUnits.fileNames(platform)
        let names = files.map(\.name)
        let wantedBy = Dictionary(uniqueKeysWithValues: files.compactMap { file in file.wantedBy.map { (file.name, $0) } })
        let autostart = AutostartEntry.folder(environment: context.environment)
        try refuseHandWritten(folder, names, force: force, doing: "uninstall")
        try refuseHandWritten(autostart, [AutostartEntry.fileName], force: force, doing: "uninstall")
        // Where no manager runs (no systemd here), there is nothing to stop: only files.
        let managed = !InstalledService.read(platform, folder: folder).isAbsent && (platform == .launchd || context.systemdBooted())
        let stopped = managed ? await perform(.stop(platform, userID: UInt32(getuid()))) : nil
        let removed: [String]
        do {
            removed = try folder.removeAll(names, wantedBy: wantedBy) + autostart.removeAll([AutostartEntry.fileName])
        } catch {
            throw CommandFailure("\(error); fix the folder's permissions and run `gitbay-sync service uninstall` again", exitCode: .stateError)
        }
        var forgotten: ServiceActivation.Outcome?
        if stopped == .active, let forget = ServiceActivation.forget(platform) { forgotten = await perform(forget) }
        // The first call that did not go through, if any.
        let trouble = [stopped, forgotten].compactMap { $0 }.first { $0 != .active }
        let done = stopped == .active && trouble == nil
        let stop =
            platform == .systemd
            ? "systemctl --user disable --now \(ServiceUnits.timerName) \(ServiceUnits.serviceName); systemctl --user daemon-reload"
            : "launchctl bootout gui/$(id -u)/\(ServiceUnits.launchdLabel)"
        let text = Self.uninstalled(platform, removed: removed, done: done, trouble: trouble, stop: stop)
        show(
            ReportedOutput(
                json: .object([
                    ("platform", .string(platform.rawValue)),
                    ("removed", .array(removed.map(JSONValue.string))),
                    ("stopped", .bool(done)),
                    ("next", done || removed.isEmpty ? .null : .string(stop)),
                ]),
                text: removed.isEmpty && !done
                    ? ["Nothing to remove: no gitbay-sync units in \(folder.path), and no autostart entry in \(autostart.path)."] : text
            ))
        return .success
    }

    /// What `service uninstall` says: what it stopped, removed and had forgotten, or what
    /// may still be loaded and what stops it.
    private static func uninstalled(
        _ platform: ServiceUnits.Platform, removed: [String], done: Bool, trouble: ServiceActivation.Outcome?, stop: String
    ) -> [String] {
        var text = removed.map { "Removed \($0)" }
        if done {
            if platform == .systemd {
                text.insert("Stopped and disabled \(ServiceUnits.timerName) and \(ServiceUnits.serviceName).", at: 0)
                text.append("Reloaded the user manager: nothing of gitbay-sync is loaded.")
            } else {
                text.insert("Took \(ServiceUnits.launchdLabel) out of launchd.", at: 0)
            }
        } else if let trouble {
            text.append("They may still be loaded: \(said(trouble, program: platform == .systemd ? "systemctl" : "launchctl")). Run: \(stop)")
        } else if !removed.isEmpty {
            text.append("If they were running, run: \(stop)")
        }
        return text
    }
}
