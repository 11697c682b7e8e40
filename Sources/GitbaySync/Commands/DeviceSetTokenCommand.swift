import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `device set-token [--label LABEL]`.
struct DeviceSetTokenCommand: CommandDefinition {
    static let label = CommandSpec.Option(name: "--label", valueName: "LABEL", help: "The device's name on the servers (default: the host name).")

    static let spec = CommandSpec(
        words: ["device", "set-token"], group: .thisDevice, arguments: [], options: [label],
        summary: "Set this device's push token (read on stdin).",
        discussion: """
            Reads the push token on stdin: up to \(InputLimit.deviceToken.maximumBytes) bytes, no spaces. A different token than the
            current one is a rotation: the next run adds the new token, then removes the rows made
            with the old one.
            """,
        examples: [
            .init("Set the push token the app handed over", ["device", "set-token"], before: "printf %s \"$DEVICE_TOKEN\" |"),
            .init("The same from a file, named on the servers as work-mac", ["device", "set-token", "--label", "work-mac"], after: "< token.txt"),
        ]
    )

    let label: String?

    init(label: String? = nil) {
        self.label = label
    }

    init(_ input: CommandInput) throws(UsageError) {
        label = input.value(Self.label)
    }

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.setDeviceToken(label: label)
    }
}

extension CommandRunner {
    /// `device set-token [--label L]`: store the token read on stdin (a rotation when it differs).
    fileprivate func setDeviceToken(label: String?) async throws -> ExitCode {
        if let label {
            let trimmed = label.trimmingWhitespace()
            let isControl: (Character) -> Bool = { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }
            guard !trimmed.isEmpty, trimmed.count <= 100, !trimmed.contains(where: { isControl($0) || $0 == "[" || $0 == "]" }) else {
                throw CommandFailure(
                    "--label must be 1 to 100 characters on one line, without control characters, [ or ] (they mark this install's rows)",
                    exitCode: .dataError)
            }
        }
        let text = try readSecret(prompt: "Device push token (input hidden): ", limit: .deviceToken)
        // APNs, FCM and UnifiedPush tokens are printable ASCII. Anything else is a paste gone
        // wrong, and a server would show it cut in the middle of a character.
        guard text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw CommandFailure(
                "the device token contains whitespace, control characters or characters outside printable ASCII; give the token alone, as the platform hands it out",
                exitCode: .dataError)
        }
        let limit = InputLimit.deviceToken.maximumBytes
        guard text.utf8.count <= limit else {
            throw CommandFailure("the device token is \(text.utf8.count) bytes; gitbay servers take at most \(limit)", exitCode: .dataError)
        }
        let store = try await openStore()
        let change = try await engine(store).setDeviceToken(Secret(text), label: label?.trimmingWhitespace())
        let (device, rotated) = (change.device, change.rotated)
        let what = change.unchanged ? "unchanged" : (rotated ? "rotated" : "set")
        let prefix = device.token.map { $0.prefix() } ?? ""
        show(
            ReportedOutput(
                json: .object([("device", device.json), ("rotated", .bool(rotated))]),
                text: ["Device token \(what) (\(prefix)…), label \"\(device.label)\". `gitbay-sync run` (or the timer) brings every account in line."]
            ))
        return .success
    }
}
