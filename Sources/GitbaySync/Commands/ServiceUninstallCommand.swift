import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `service uninstall [--force]`.
struct ServiceUninstallCommand: CommandDefinition {
    static let force = CommandSpec.Option(
        name: "--force", valueName: nil, help: "Also remove unit files of those names that `service install` did not write.")

    static let spec = CommandSpec(
        words: ["service", "uninstall"], group: .running, arguments: [], options: [force],
        summary: "Remove the units `service install` wrote.",
        discussion:
            "Removes the service and timer units (or the launchd agent) and the links `systemctl enable` made. A file of the same name that `service install` did not write is left alone (exit 78, nothing removed) unless --force.",
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
        try runner.serviceUninstall(force: force)
    }
}

extension CommandRunner {
    /// A file of the same name that `service install` did not write is left alone, and then
    /// nothing is removed, unless `force`.
    fileprivate func serviceUninstall(force: Bool) throws -> ExitCode {
        let platform = ServiceUnits.Platform.current
        let folder = UnitFolder.resolve(platform, environment: context.environment)
        let files = ServiceUnits.fileNames(platform)
        let names = files.map(\.name)
        let wantedBy = Dictionary(uniqueKeysWithValues: files.compactMap { file in file.wantedBy.map { (file.name, $0) } })
        try refuseHandWritten(folder, names, force: force, doing: "uninstall")
        let removed: [String]
        do {
            removed = try folder.removeAll(names, wantedBy: wantedBy)
        } catch {
            throw CommandFailure("\(error); fix the folder's permissions and run `gitbay-sync service uninstall` again", exitCode: .stateError)
        }
        let stop =
            platform == .systemd
            ? "systemctl --user stop \(ServiceUnits.timerName) \(ServiceUnits.serviceName); systemctl --user daemon-reload"
            : "launchctl bootout gui/$(id -u)/\(ServiceUnits.launchdLabel)"
        show(
            ReportedOutput(
                json: .object([
                    ("platform", .string(platform.rawValue)),
                    ("removed", .array(removed.map(JSONValue.string))),
                    ("next", .string(stop)),
                ]),
                text: removed.isEmpty
                    ? ["Nothing to remove: no gitbay-sync units in \(folder.path)."]
                    : removed.map { "Removed \($0)" } + ["If they were running, run: \(stop)"]
            ))
        return .success
    }
}
