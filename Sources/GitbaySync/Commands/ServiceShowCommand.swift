import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `service show [--every DURATION] [--no-notify]`.
struct ServiceShowCommand: CommandDefinition {
    static let noNotify = CommandSpec.Option(
        name: "--no-notify", valueName: nil, help: "Show the units as `service install --no-notify` writes them, with `run --no-notify`.")

    static let spec = CommandSpec(
        words: ["service", "show"], group: .running, arguments: [], options: [.every, noNotify],
        summary: "Print the units `service install` would write.",
        discussion: "Writes nothing.",
        examples: [
            .init("See the units before installing them", ["service", "show", "--every", "30m"])
        ]
    )

    /// The timer's period; nil for the default.
    let every: Duration?
    /// The units' runs raise desktop notifications.
    let notify: Bool

    init(every: Duration? = nil, notify: Bool = true) {
        self.every = every
        self.notify = notify
    }

    init(_ input: CommandInput) throws(UsageError) {
        every = try input.value(.every, IntervalParser.option)
        notify = !input.isSet(Self.noNotify)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try runner.serviceShow(every: every, notify: notify)
    }
}

extension CommandRunner {
    /// `service show [--every] [--no-notify]`: what `service install` would write, and where.
    /// Writes nothing.
    fileprivate func serviceShow(every: Duration?, notify: Bool) throws -> ExitCode {
        let (units, folder) = try serviceUnits(every: every, notify: notify)
        show(
            ReportedOutput(
                json: .object([
                    ("platform", .string(units.platform.rawValue)),
                    ("folder", .string(folder.path)),
                    (
                        "files",
                        .array(units.files.map { .object([("path", .string(folder.filePath($0.name))), ("contents", .string($0.contents))]) })
                    ),
                    ("next", .string(units.enableCommand)),
                ]),
                text: units.files.flatMap { ["# \(folder.filePath($0.name))", $0.contents] }
                    + ["# `gitbay-sync service install` writes these; then run: \(units.enableCommand)"]
            ))
        return .success
    }
}
