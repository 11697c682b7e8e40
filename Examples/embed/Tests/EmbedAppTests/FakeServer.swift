// A gitbay-fake-server process on 127.0.0.1 for one test, started from the binary the
// package's `swift build --product gitbay-fake-server` makes (or $GITBAY_FAKE_SERVER).
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One fake gitbay server: its URL, each user's full-scope token, and its control routes. It
/// stops when this value goes (its standard input, a pipe held here, reaches its end).
final class FakeServer {
    struct StartFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// A device row on the server, as `/_fake/stats` lists it.
    struct Row: Decodable, Equatable {
        let id: Int
        let owner: String
        let token: String
    }

    let url: String
    let tokens: [String: String]
    private let process: Process
    private let lifeline: Pipe

    /// The server binary: $GITBAY_FAKE_SERVER, else the one built in the repository's `.build`.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["GITBAY_FAKE_SERVER"] { return path }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../..").standardized
        return repository.appendingPathComponent(".build/debug/gitbay-fake-server").path
    }

    /// Starts a server with `users`, each answer delayed by `latencyMilliseconds`.
    init(users: [String], latencyMilliseconds: Int = 0) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw StartFailed(description: "no \(Self.binary): run `swift build --product gitbay-fake-server` at the repository's root")
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["--users", users.joined(separator: ","), "--latency-ms", String(latencyMilliseconds)]
        lifeline = Pipe()
        let output = Pipe()
        process.standardInput = lifeline
        process.standardOutput = output
        try process.run()
        // Its first line: {"url": ..., "tokens": {user: token}}.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { throw StartFailed(description: "gitbay-fake-server ended before saying its address") }
            line += more
        }
        struct Started: Decodable {
            let url: String
            let tokens: [String: String]
        }
        let started = try JSONDecoder().decode(Started.self, from: line.prefix { $0 != UInt8(ascii: "\n") })
        (url, tokens) = (started.url, started.tokens)
    }

    deinit {
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// The user's token.
    func token(_ user: String) throws -> String {
        try #require(tokens[user], "the server has no user \(user)")
    }

    /// The device rows on the server, every account's.
    func rows() async throws -> [Row] {
        struct Stats: Decodable { let devices: [Row] }
        let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: url + "/_fake/stats")))
        return try JSONDecoder().decode(Stats.self, from: data).devices
    }

    /// Closes every connection for `seconds` (1 to 60): the server is down.
    func down(seconds: Int) async throws {
        var request = URLRequest(url: try #require(URL(string: url + "/_fake/down?seconds=\(seconds)")))
        request.httpMethod = "POST"
        _ = try await URLSession.shared.data(for: request)
    }
}
