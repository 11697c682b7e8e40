import Foundation
import GitbayFake
import Synchronization
import TestSupport
import Testing

/// The fake's count of accepted TCP connections, in the Swift API and in `GET /_fake/stats`.
extension FakeServerTests {
    @Test("every accepted connection counts once, however many requests it carries")
    func connectionCount() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        #expect(server.connectionCount == 0)

        let kept = try RawHTTP(port: server.port)
        for _ in 0..<3 {
            #expect(try kept.send("GET", RawHTTP.readTarget(["whoami"]), headers: RawHTTP.authorization(token)).status == 200)
        }
        #expect(server.connectionCount == 1)

        _ = try RawHTTP.read(server.port, token: token, Self.list)
        _ = try RawHTTP.command(server.port, token: token, Self.add, stdin: "3f2a9c01aabbccdd")
        #expect(server.connectionCount == 3)
        #expect(server.requests().count == 5)
    }

    @Test("GET /_fake/stats reports connections, its own included; POST /_fake/reset-stats zeroes them")
    func connectionStats() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        _ = try RawHTTP.read(server.port, token: token, ["whoami"])
        _ = try RawHTTP.read(server.port, token: token, ["whoami"])

        let control = try RawHTTP(port: server.port)
        let before = try control.send("GET", "/_fake/stats").json
        #expect(try control.send("POST", "/_fake/reset-stats").status == 200)
        let after = try control.send("GET", "/_fake/stats").json
        _ = try RawHTTP.read(server.port, token: token, ["whoami"])

        #expect(before?["connections"] as? Int == 3)
        #expect(after?["connections"] as? Int == 0, "the control connection was accepted before the reset")
        #expect(server.connectionCount == 1)
    }

    @Test("a connection refused while the server is down is still counted")
    func downConnectionsCount() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.isDown = true
        #expect(throws: RawHTTP.Failure.self) { try RawHTTP.read(server.port, token: token, ["whoami"]) }
        server.isDown = false
        #expect(try RawHTTP.read(server.port, token: token, ["whoami"]).status == 200)
        #expect(server.connectionCount == 2)
        #expect(server.requests().count == 1)
    }

    @Test("GET /_fake/stats reports the most requests answered at once, latency included")
    func mostAnswering() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.latency = .milliseconds(300)
        // A thread each: Dispatch would run no more of them at once than there are cores.
        let statuses = Mutex<[Int]>([])
        let done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            Thread {
                let status = (try? RawHTTP.read(server.port, token: token, ["whoami"]))?.status ?? 0
                statuses.withLock { $0.append(status) }
                done.leave()
            }.start()
        }
        done.wait()
        let control = try RawHTTP(port: server.port)
        let together = try control.send("GET", "/_fake/stats").json
        #expect(try control.send("POST", "/_fake/reset-stats").status == 200)
        _ = try RawHTTP.read(server.port, token: token, ["whoami"])
        _ = try RawHTTP.read(server.port, token: token, ["whoami"])
        let oneByOne = try control.send("GET", "/_fake/stats").json

        #expect(statuses.withLock { $0 } == [200, 200, 200, 200])
        #expect(together?["mostAnswering"] as? Int == 4, "four requests held 300 ms each, sent at once")
        #expect(oneByOne?["mostAnswering"] as? Int == 1, "two requests one after the other, and the stats request itself")
    }
}
