import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `service show [--every DURATION]`.
struct ServiceShowCommand: CommandDefinition {
    static let spec = CommandSpec(
        words: ["service", "show"], group: .running, arguments: [], options: [.every], summary: "Print the units `service install` would write.",
        discussion: "Writes nothing.",
        examples: [
            .init("See the units before installing them", ["service", "show", "--every", "30m"])
        ]
    )

    /// The timer's period; nil for the default.
    let every: Duration?

    init(every: Duration? = nil) {
        self.every = every
    }

    init(_ input: CommandInput) throws(UsageError) {
        every = try input.value(.every, IntervalParser.option)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try runner.serviceShow(every: every)
    }
}

extension CommandRunner {
    /// `service show [--every]`: what `service install` would write, and where. Writes nothing.
    fileprivate func serviceShow(every: Duration?) throws -> ExitCode {
        let (units, folder) = try serviceUnits(every: every)
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
