import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `device show`.
struct DeviceShowCommand: PlainCommand {
    static let spec = CommandSpec(
        words: ["device", "show"], group: .thisDevice, arguments: [], options: [], summary: "Show this device: label, install marker, token prefix.",
        discussion: "Only the first 8 bytes of the token are ever shown.",
        examples: [
            .init("Show the label, the install marker and the first bytes of the token", ["device", "show"]),
            .init("The same as JSON", ["device", "show", "--json"]),
        ]
    )

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.showDevice()
    }
}

extension CommandRunner {
    /// `device show`.
    fileprivate func showDevice() async throws -> ExitCode {
        let store = try await openExistingStore()
        let device = try await store.device()
        show(DeviceOutput(device: device))
        return .success
    }
}

/// What `device show` prints.
struct DeviceOutput: CommandOutput {
    let device: DeviceRecord

    var json: JSONValue { .object([("device", device.json)]) }

    var text: [String] {
        var lines = [
            "label: \(escaped: device.label)",
            "install marker: \(device.installMarker) (rows are labelled \"\(escaped: device.serverLabel)\")",
            "token: "
                + (device.token.map { "\($0.prefix())… (generation \(device.generation))" } ?? "not set; set one with `gitbay-sync device set-token`"),
        ]
        if !device.history.isEmpty {
            lines.append("previous tokens: \(device.history.map { "\($0.prefix)…" }.joined(separator: ", "))")
        }
        return lines
    }
}
