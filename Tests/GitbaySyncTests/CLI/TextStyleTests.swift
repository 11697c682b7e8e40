import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// Times said from now, aligned names, and colour on a terminal only.
@Suite("Text style")
struct TextStyleTests {
    struct Distance: Sendable, CustomStringConvertible {
        let seconds: Double
        let said: String
        var description: String { "\(seconds) s: \(said)" }
    }

    static let now = Date(timeIntervalSince1970: 2_000_000_000)

    @Test(
        "an instant is said from now, and a far one (a wrong clock's) by its date",
        arguments: [
            Distance(seconds: 0.4, said: "just now"), Distance(seconds: -40, said: "40 s ago"), Distance(seconds: 300, said: "in 5 min"),
            Distance(seconds: -720, said: "12 min ago"), Distance(seconds: -7200, said: "2 h ago"),
            Distance(seconds: -86400, said: "1 day ago"), Distance(seconds: -3 * 86400 - 5, said: "3 days ago"),
            Distance(seconds: 100 * 365 * 86400, said: "on 2133-04-24"), Distance(seconds: -60 * 86400, said: "on 2033-03-19"),
        ])
    func relative(_ distance: Distance) {
        #expect(RelativeTime.said(Self.now.addingTimeInterval(distance.seconds), now: Self.now) == distance.said)
    }

    /// Two accounts whose names differ in length, one registered (the holder), one shadowed.
    static func twoAccounts() async throws -> (CLIHarness, FakeGitbayServer) {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        try await cli.login(server, "al")
        try await cli.login(server, "bobby")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        #expect(await cli.run(["run"]).code == 0)
        return (cli, server)
    }

    @Test("accounts and status pad the names to the longest, so the states start in one column")
    func aligned() async throws {
        let (cli, server) = try await Self.twoAccounts()
        let port = server.port
        for command in [["accounts"], ["status"]] {
            let out = await cli.run(command).out
            #expect(out.contains("al@127.0.0.1:\(port)     registered, device "), "\(out)")
            #expect(out.contains("bobby@127.0.0.1:\(port)  shadowed"), "\(out)")
        }
    }

    @Test("on a terminal, states and doctor's labels are coloured, after the padding; never with NO_COLOR, in --json or off a terminal")
    func colour() async throws {
        let (cli, server) = try await Self.twoAccounts()
        let port = server.port
        let terminal: (inout CLIContext) -> Void = { $0.console.outputIsTerminal = true }
        let coloured = await cli.run(["accounts"], adjust: terminal).out
        #expect(coloured.contains("al@127.0.0.1:\(port)     \u{1B}[32mregistered\u{1B}[0m, device "), "\(coloured)")
        #expect(coloured.contains("bobby@127.0.0.1:\(port)  \u{1B}[2mshadowed\u{1B}[0m"), "\(coloured)")
        let doctor = await cli.run(["doctor"], adjust: terminal).out
        #expect(doctor.contains("\u{1B}[32mOK\u{1B}[0m    "), "\(doctor)")

        for (arguments, environment, adjust) in [
            (["accounts"], ["NO_COLOR": "1"], terminal), (["accounts", "--json"], [:], terminal), (["status"], [:], { _ in }),
            (["doctor"], ["NO_COLOR": "yes"], terminal),
        ] as [([String], [String: String], (inout CLIContext) -> Void)] {
            let plain = await cli.run(arguments, extraEnvironment: environment, adjust: adjust)
            #expect(!plain.out.contains("\u{1B}"), "\(arguments) \(environment): \(plain.out)")
            #expect(!plain.out.isEmpty)
        }
        let empty = await cli.run(["accounts"], extraEnvironment: ["NO_COLOR": ""], adjust: terminal).out
        #expect(empty.contains("\u{1B}[32m"), "an empty NO_COLOR leaves colour on: \(empty)")
    }
}
