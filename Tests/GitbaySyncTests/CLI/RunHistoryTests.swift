import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync

/// `status --history`: the last runs, kept in the database, written without a transaction
/// of their own in a steady run.
@Suite("Run history")
struct RunHistoryTests {
    static let start = Date(timeIntervalSince1970: 2_000_000_000)

    static func run(_ cli: CLIHarness, _ arguments: [String], at date: Date, environment: [String: String] = [:]) async -> CLIResult {
        await cli.run(arguments, extraEnvironment: environment) { $0.now = { date } }
    }

    /// The write transactions `run -vv` reports at its end.
    static func writeTransactions(_ result: CLIResult) -> Int? {
        guard let line = result.err.split(separator: "\n").last(where: { $0.contains("write transaction") }),
            let range = line.range(of: #"database: (\d+) write"#, options: .regularExpression)
        else { return nil }
        return Int(line[range].split(separator: " ")[1])
    }

    @Test("a steady run records itself in the one write transaction it makes, that of its verdicts")
    func steadyRunWritesOnce() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        try await cli.login(server, "alice")
        try await cli.login(server, "bob")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        #expect(await Self.run(cli, ["run"], at: Self.start).code == 0)

        let steady = await Self.run(cli, ["run", "-vv"], at: Self.start.addingTimeInterval(60))
        #expect(steady.code == 0, "\(steady.err)")
        #expect(Self.writeTransactions(steady) == 1, "\(steady.err)")
        let runs = try await cli.store().runHistory()
        #expect(runs.map(\.start.startedAt) == [Self.start.addingTimeInterval(60), Self.start])
        #expect(runs.first?.result == .ok && runs.first?.accounts == 2 && runs.first?.added == 0)
    }

    @Test("newest first: what started each run, its result and counts; relative times in text, RFC 3339 in --json")
    func listsTheRuns() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        try await cli.login(server, "alice")
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        #expect(await Self.run(cli, ["run"], at: Self.start).code == 0)
        let timer = ["TRIGGER_UNIT": "gitbay-sync.timer"]
        #expect(await Self.run(cli, ["run", "--unattended"], at: Self.start.addingTimeInterval(3600), environment: timer).code == 0)
        #expect(await Self.run(cli, ["run", "--unattended"], at: Self.start.addingTimeInterval(3720)).code == 0)

        let now = Self.start.addingTimeInterval(3900)
        let text = await Self.run(cli, ["status", "--history"], at: now)
        #expect(text.code == 0, "\(text.err)")
        #expect(
            text.out.split(separator: "\n") == [
                "STARTED    TOOK  BY       RESULT  ACCOUNTS  ADDED  REMOVED  FAILED  UNCHECKED",
                "3 min ago  0 s   service  ok      1         0      0        0       0",
                "5 min ago  0 s   timer    ok      1         0      0        0       0",
                "1 h ago    0 s   run      ok      1         1      0        0       0",
            ], "\(text.out)")
        #expect(!text.out.contains("\u{1B}"), "no colour off a terminal")

        let json = try #require(try await Self.run(cli, ["status", "--history", "--json"], at: now).json()["runs"] as? [[String: Any]])
        #expect(json.map { $0["started_at"] as? String } == [3720, 3600, 0].map { Timestamp.format(Self.start.addingTimeInterval($0)) })
        #expect(json.map { $0["trigger"] as? String } == ["service", "timer", "run"])
        #expect(json.last?["added"] as? Int == 1 && json.last?["failed_accounts"] as? [String] == [])
        #expect(json.last?["finished_at"] as? String == Timestamp.format(Self.start))
    }

    @Test("a failed run names its accounts, in text escaped and in --json as they are")
    func failedRun() async throws {
        let server = try FakeGitbayServer()
        let cli = try CLIHarness()
        let token = server.mintToken(for: "alice")
        #expect(await cli.run(["login", server.baseURL], stdin: token).code == 0)
        let alice = "alice@127.0.0.1:\(server.port)"
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        server.revokeToken(token)
        #expect(await Self.run(cli, ["run"], at: Self.start).code == 1)

        let text = await Self.run(cli, ["status", "--history"], at: Self.start.addingTimeInterval(30))
        #expect(text.out.contains("30 s ago  0 s   run  failed  1         0      0        1: \(alice)"), "\(text.out)")
        let json = try #require(try await Self.run(cli, ["status", "--history", "--json"], at: Self.start).json()["runs"] as? [[String: Any]])
        #expect(json.first?["result"] as? String == "failed" && json.first?["failed_accounts"] as? [String] == [alice])
    }

    @Test("the database keeps the newest runs only: the oldest go in the transaction that adds one")
    func bounded() async throws {
        let cli = try CLIHarness()
        #expect(await cli.run(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd").code == 0)
        let store = try await cli.store()
        let extra = 5
        for index in 0..<(RunHistoryRecord.kept + extra) {
            let start = RunHistoryRecord.Start(trigger: .run, startedAt: Self.start.addingTimeInterval(Double(index)), pid: 7)
            try await store.recordRun(
                RunHistoryRecord(start: start, finishedAt: start.startedAt, result: .ok, accounts: 0, added: 0, removed: 0, failedAccounts: []))
        }
        let runs = try await store.runHistory(limit: 1000)
        #expect(runs.count == RunHistoryRecord.kept)
        #expect(runs.last?.start.startedAt == Self.start.addingTimeInterval(Double(extra)), "the oldest kept is the sixth recorded")
    }
}
