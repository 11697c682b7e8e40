import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

@Suite("Secrets never reach the output")
struct SecretLeakTests {
    static let firstDeviceToken = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
    static let secondDeviceToken = "77aa88bb99cc00dd11ee22ff3344556677aa88bb99cc00dd11ee22ff33445566"

    /// Everything a whole story printed, command by command.
    final class Transcript: Sendable {
        let cli: CLIHarness
        private let entries = LockedBox<[(arguments: [String], result: CLIResult)]>([])

        init(cli: CLIHarness) { self.cli = cli }

        @discardableResult
        func run(_ arguments: [String], stdin: String? = nil) async -> CLIResult {
            let result = await cli.run(arguments, stdin: stdin)
            entries.mutate { $0.append((arguments, result)) }
            return result
        }

        var all: [(arguments: [String], result: CLIResult)] { entries.value }
    }

    @Test("a whole story, verbose and in JSON, prints no API token and no device token beyond its 8-byte prefix")
    func wholeStory() async throws {
        let a = try FakeGitbayServer()
        let b = try FakeGitbayServer()
        let cli = try CLIHarness()
        let story = Transcript(cli: cli)
        let aliceToken = a.mintToken(for: "alice")
        let bobToken = a.mintToken(for: "bob")
        let carolToken = b.mintToken(for: "carol")
        let refusedToken = "gb_" + String(repeating: "9f", count: 20)
        let carol = "carol@127.0.0.1:\(b.port)"
        let bob = "bob@127.0.0.1:\(a.port)"

        #expect(await story.run(["login", a.baseURL, "-vvv"], stdin: aliceToken + "\n").code == 0)
        #expect(await story.run(["login", a.baseURL, "--json", "-vvv"], stdin: bobToken).code == 0)
        #expect(await story.run(["login", b.baseURL, "-vv"], stdin: carolToken).code == 0)
        #expect(await story.run(["login", b.baseURL, "-vvv"], stdin: refusedToken).code == ExitCode.denied.rawValue)
        #expect(await story.run(["device", "set-token", "--label", "laptop", "-vvv"], stdin: Self.firstDeviceToken).code == 0)
        #expect(await story.run(["run", "-vvv"]).code == 0)
        #expect(await story.run(["run", "--json", "-vvv"]).code == 0)
        for arguments in [
            ["status"], ["status", "--json"], ["accounts"], ["accounts", "--json"], ["devices", "-vvv"], ["devices", "--json"],
            ["device", "show"], ["device", "show", "--json"], ["push", "show", "--json", "-vvv"], ["doctor", "-vvv"],
        ] {
            await story.run(arguments)
        }
        #expect(await story.run(["device", "set-token", "--json", "-vvv"], stdin: Self.secondDeviceToken).code == 0)
        #expect(await story.run(["run", "-vvv"]).code == 0)
        #expect(await story.run(["device", "show"]).code == 0)

        b.isDown = true
        #expect(await story.run(["run", "-vvv"]).code == ExitCode.partialFailure.rawValue)
        #expect(await story.run(["run", "--now", "--json", "-vvv"]).code == ExitCode.partialFailure.rawValue)
        #expect(await story.run(["remove-account", carol, "-vvv"]).code == ExitCode.unavailable.rawValue)
        await story.run(["status", "-vvv"])
        await story.run(["status", "--json"])
        await story.run(["devices", "--json", "-vvv"])
        await story.run(["doctor", "--json"])
        b.isDown = false
        #expect(await story.run(["run", "--now", "-vvv"]).code == 0)
        #expect(await story.run(["remove-account", bob, "--json", "-vvv"]).code == 0)
        await story.run(["accounts", "-vvv"])

        let secrets: [(String, String)] = [
            ("alice's API token", aliceToken), ("bob's API token", bobToken), ("carol's API token", carolToken),
            ("the refused API token", refusedToken),
            ("the first device token", Self.firstDeviceToken), ("the second device token", Self.secondDeviceToken),
        ]
        var printed = 0
        for (arguments, result) in story.all {
            for (stream, text) in [("stdout", result.out), ("stderr", result.err)] {
                printed += text.count
                for (name, secret) in secrets {
                    for piece in Self.pieces(of: secret) {
                        #expect(!text.contains(piece), "\(stream) of `\(arguments.joined(separator: " "))` shows part of \(name): \(piece)")
                    }
                }
            }
        }
        // The story did print things, the verbose logs included, and the prefixes are there.
        #expect(printed > 2000)
        #expect(story.all.contains { $0.result.out.contains(String(Self.secondDeviceToken.prefix(8))) })
        #expect(story.all.contains { $0.arguments.contains("-vvv") && !$0.result.err.isEmpty })
    }

    /// What must not appear of a secret: its first 9 bytes (8 is the shown prefix) and every
    /// 12-byte stretch after the prefix. An API token's `gb_` is common to all, so its prefix
    /// check starts after it.
    static func pieces(of secret: String) -> [String] {
        let bytes = Array(secret)
        let start = secret.hasPrefix("gb_") ? 3 : 0
        var pieces = [String(bytes[start..<(start + 9)])]
        var offset = 8
        while offset + 12 <= bytes.count {
            pieces.append(String(bytes[offset..<(offset + 12)]))
            offset += 4
        }
        return pieces
    }
}
