import FoundationEssentials
import GitbayReconcile
import GitbayState
import GitbaySupport

extension CommandRunner {
    /// The longest push token a gitbay server stores.
    static let maximumDeviceTokenBytes = 512

    /// `device set-token [--label L]`: store the token read on stdin (a rotation when it differs).
    func setDeviceToken(label: String?) async throws -> ExitCode {
        if let label {
            let trimmed = label.trimmingWhitespace()
            let isControl: (Character) -> Bool = { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }
            guard !trimmed.isEmpty, trimmed.count <= 100, !trimmed.contains(where: { isControl($0) || $0 == "[" || $0 == "]" }) else {
                throw CommandFailure("--label must be 1 to 100 characters on one line, without control characters, [ or ] (they mark this install's rows)", exitCode: .dataError)
            }
        }
        let text = try readSecret(prompt: "Device push token (input hidden): ", limit: .deviceToken)
        // APNs, FCM and UnifiedPush tokens are printable ASCII. Anything else is a paste gone
        // wrong, and a server would show it cut in the middle of a character.
        guard text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw CommandFailure("the device token contains whitespace, control characters or characters outside printable ASCII; give the token alone, as the platform hands it out", exitCode: .dataError)
        }
        guard text.utf8.count <= Self.maximumDeviceTokenBytes else {
            throw CommandFailure("the device token is \(text.utf8.count) bytes; gitbay servers take at most \(Self.maximumDeviceTokenBytes)", exitCode: .dataError)
        }
        let store = try await openStore()
        let before = try await store.device()
        let device = try await store.setDeviceToken(Secret(text), label: label?.trimmingWhitespace(), now: context.now())
        let rotated = before.token != nil && before.generation != device.generation
        if global.json {
            printJSON(.object([("device", deviceJSON(device)), ("rotated", .bool(rotated))]))
        } else {
            let what = before.generation == device.generation ? "unchanged" : (rotated ? "rotated" : "set")
            context.console.out("Device token \(what) (\(device.token!.prefix())…), label \"\(device.label)\". `gitbay-sync run` (or the timer) brings every account in line.")
        }
        return .success
    }

    /// `device show`.
    func showDevice() async throws -> ExitCode {
        let store = try await openExistingStore()
        let device = try await store.device()
        if global.json {
            printJSON(.object([("device", deviceJSON(device))]))
        } else {
            context.console.out("label: \(escaped: device.label)")
            context.console.out("install marker: \(device.installMarker) (rows are labelled \"\(escaped: device.serverLabel)\")")
            context.console.out("token: " + (device.token.map { "\($0.prefix())… (generation \(device.generation))" } ?? "not set; set one with `gitbay-sync device set-token`"))
            if !device.history.isEmpty {
                context.console.out("previous tokens: \(device.history.map { "\($0.prefix)…" }.joined(separator: ", "))")
            }
        }
        return .success
    }

    /// `device clear`: forget the token, then deregister this device everywhere.
    func clearDevice() async throws -> ExitCode {
        let store = try await openStore()
        try await store.clearDeviceToken(now: context.now())
        let outcomes = try await reconciler(store).reconcile()
        if global.json {
            printJSON(.object([
                ("device", deviceJSON(try await store.device())), ("accounts", .array(outcomes.map(\.json))),
                ("ok", .bool(!outcomes.contains(where: \.isFailure))),
            ]))
        } else {
            // Say which servers may still have a row; the lines below say why and what ends it.
            let left = outcomes.filter { $0.action == .failed || $0.action == .skipped }.map { TerminalText.escaped($0.account) }
            if left.isEmpty {
                context.console.out("Device token forgotten; this device's rows are removed from every account.")
            } else {
                context.console.out(
                    "Device token forgotten; this device's rows are removed from \(outcomes.count - left.count) of \(outcomes.count) account\(outcomes.count == 1 ? "" : "s"), "
                        + "not yet from \(left.joined(separator: ", ")) (below)."
                )
            }
        }
        return report(outcomes)
    }

    func deviceJSON(_ device: DeviceRecord) -> JSONValue {
        .object([
            ("label", .string(device.label)),
            ("install_marker", .string(device.installMarker)),
            ("token_prefix", .optional(device.token?.prefix())),
            ("token_generation", .int(device.generation)),
            ("token_set_at", .optional(device.tokenSetAt)),
            ("previous_token_prefixes", .array(device.history.map { .string($0.prefix) })),
        ])
    }
}
