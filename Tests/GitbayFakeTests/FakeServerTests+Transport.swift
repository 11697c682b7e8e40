import Foundation
import GitbayFake
import TestSupport
import Testing

/// ETags, limits, faults and the HTTP mechanics of the fake server.
extension FakeServerTests {
    // MARK: ETag

    @Test("a matching If-None-Match answers 304 with an empty body; tags are salted per account")
    func entityTags() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let alice = server.mintToken(for: "alice")
        let bob = server.mintToken(for: "bob")

        let first = try RawHTTP.read(server.port, token: alice, Self.list)
        let tag = try #require(first.headers["etag"])
        let unchanged = try RawHTTP.read(server.port, token: alice, Self.list, headers: [("If-None-Match", tag)])
        server.insertDevice(owner: "alice", token: "3f2a9c01aabbccdd", label: "laptop")
        let changed = try RawHTTP.read(server.port, token: alice, Self.list, headers: [("If-None-Match", tag)])
        let bobs = try RawHTTP.read(server.port, token: bob, Self.list)

        #expect(first.text == bobs.text)
        #expect(bobs.headers["etag"] != tag)
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)
        #expect(unchanged.headers["etag"] == tag)
        #expect(changed.status == 200)
        #expect(changed.dataArray?.count == 1)
    }

    @Test("an error on the read route is tagged too, apart from a success; a refusal before dispatch is not")
    func entityTagsOnErrors() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")

        let failed = try RawHTTP.read(server.port, token: token, Self.list + ["all"])
        let tag = try #require(failed.headers["etag"])
        let again = try RawHTTP.read(server.port, token: token, Self.list + ["all"], headers: [("If-None-Match", tag)])
        let listed = try RawHTTP.read(server.port, token: token, Self.list, headers: [("If-None-Match", tag)])
        let refused = try RawHTTP.read(server.port, token: token, ["frobnicate"])

        #expect(failed.status == 400)
        #expect(failed.exitCode == 2)
        #expect(failed.headers["cache-control"] == "private, no-cache")
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(listed.status == 200)
        #expect(listed.headers["etag"] != nil && listed.headers["etag"] != tag)
        #expect(refused.status == 404)
        #expect(refused.headers["etag"] == nil)
    }

    @Test("query values are percent-decoded, with + as a space")
    func percentDecoding() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")

        let response = try RawHTTP(port: server.port).send(
            "GET", "/api/v1/read?argv=who%61mi&argv=%2D%2Djson", headers: RawHTTP.authorization(token))
        let spaced = try RawHTTP(port: server.port).send(
            "GET", "/api/v1/read?argv=no+such", headers: RawHTTP.authorization(token))

        #expect(response.status == 200)
        #expect(server.requests().first?.argv == ["whoami", "--json"])
        #expect(spaced.status == 404)
        #expect(spaced.error?.contains("\"no such\"") == true)
    }

    // MARK: Routes

    @Test("wrong methods, unknown paths and a disabled API answer the HTML 404 page")
    func htmlNotFound() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        let auth = RawHTTP.authorization(token)

        var responses = [
            try RawHTTP(port: server.port).send("GET", "/api/v1/cmd", headers: auth),
            try RawHTTP(port: server.port).send("POST", RawHTTP.readTarget(["whoami"]), headers: auth),
            try RawHTTP(port: server.port).send("GET", "/api/v2/read?argv=whoami", headers: auth),
        ]
        server.apiEnabled = false
        responses.append(try RawHTTP.read(server.port, token: token, ["whoami"]))

        for response in responses {
            #expect(response.status == 404)
            #expect(response.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(response.json == nil)
        }
    }

    @Test("a body over 1 MiB is a malformed body: 400 without exit_code")
    func bodyLimit() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        let huge = RawHTTP.commandBody(Self.add, stdin: String(repeating: "a", count: 1 << 20))

        let tooBig = try RawHTTP(port: server.port).send("POST", "/api/v1/cmd", headers: RawHTTP.authorization(token), body: huge)
        let notJSON = try RawHTTP(port: server.port).send(
            "POST", "/api/v1/cmd", headers: RawHTTP.authorization(token), body: Array("argv=whoami".utf8))

        for response in [tooBig, notJSON] {
            #expect(response.status == 400)
            #expect(response.error?.hasPrefix("malformed request body") == true)
            #expect(response.json?["exit_code"] == nil)
        }
        #expect(server.devices().isEmpty)
    }

    @Test("one connection serves several requests, and Expect: 100-continue gets 100 Continue")
    func keepAliveAndContinue() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        let connection = try RawHTTP(port: server.port)

        let first = try connection.send("GET", RawHTTP.readTarget(["whoami"]), headers: RawHTTP.authorization(token))
        let body = RawHTTP.commandBody(Self.add, stdin: "3f2a9c01aabbccdd")
        try connection.write(
            Array(
                """
                POST /api/v1/cmd HTTP/1.1\r
                Host: 127.0.0.1\r
                Authorization: Bearer \(token)\r
                Content-Length: \(body.count)\r
                Expect: 100-continue\r
                \r

                """.utf8))
        let interim = try connection.readResponse()
        try connection.write(body)
        let final = try connection.readResponse()

        #expect(first.status == 200)
        #expect(interim.status == 100)
        #expect(final.status == 200)
        #expect(final.dataObject?["id"] as? Int == 1)
    }

    // MARK: Request log

    @Test("the request log records the route, argv, stdin, account and write flag")
    func requestLog() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")

        _ = try RawHTTP.command(server.port, token: token, Self.addArgv(label: "l") + ["--json"], stdin: "3f2a9c01aabbccdd")
        _ = try RawHTTP.read(server.port, token: token, Self.list)
        let log = server.requests()
        server.resetRequests()

        #expect(log.map(\.method) == ["POST", "GET"])
        #expect(log.map(\.path) == ["/api/v1/cmd", "/api/v1/read"])
        #expect(log[0].argv == Self.addArgv(label: "l") + ["--json"])
        #expect(log[0].stdin == "3f2a9c01aabbccdd")
        #expect(log[1].query == "argv=notifications&argv=device&argv=list")
        #expect(log.map(\.isWrite) == [true, false])
        #expect(log.map(\.user) == ["alice", "alice"])
        #expect(log.map(\.status) == [200, 200])
        #expect(log[0].headers["authorization"] == "Bearer \(token)")
        #expect(server.requests().isEmpty)
    }

    @Test("GET /_fake/stats counts API requests and lists rows; POST /_fake/reset-stats zeroes it")
    func controlRoutes() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        _ = try RawHTTP.command(server.port, token: token, Self.addArgv(label: "laptop"), stdin: "3f2a9c01aabbccdd")
        _ = try RawHTTP.read(server.port, token: token, Self.list)
        _ = try RawHTTP.read(server.port, token: token, ["whoami"])

        _ = try RawHTTP.command(server.port, token: server.mintToken(for: "bob"), Self.add, stdin: "3f2a9c01aabbccdd")
        server.insertDevice(owner: "carol", token: "abcdef\u{20AC}x", label: "cut")

        let stats = try RawHTTP(port: server.port).send("GET", "/_fake/stats").json
        let reset = try RawHTTP(port: server.port).send("POST", "/_fake/reset-stats")
        let after = try RawHTTP(port: server.port).send("GET", "/_fake/stats").json

        #expect(stats?["requests"] as? Int == 4)
        #expect(stats?["reads"] as? Int == 2)
        #expect(stats?["writes"] as? Int == 2)
        #expect(stats?["moves"] as? Int == 1)
        let rows = try #require(stats?["devices"] as? [[String: Any]])
        #expect(rows.map { $0["owner"] as? String } == ["bob", "carol"])
        #expect(rows.first?["label"] as? String == "")
        #expect(rows.map { $0["token"] as? String } == ["3f2a9c01", "abcdef\u{FFFD}\u{FFFD}"])
        #expect(reset.status == 200)
        #expect(after?["requests"] as? Int == 0)
        #expect(after?["moves"] as? Int == 0)
        #expect((after?["devices"] as? [Any])?.count == 2)
        #expect(server.requests().isEmpty)
        #expect(server.moves().count == 1, "a reset of the stats keeps the move log")
    }

    // MARK: Rate limits

    @Test("the writes bucket empties after 12 writes: 429 with Retry-After and no exit_code")
    func writeBucket() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        let other = server.mintToken(for: "bob")
        #expect(server.enforceRateLimits, "on by default, as on every gitbay")

        let statuses = try (0..<12).map { index in
            try RawHTTP.command(server.port, token: token, Self.add, stdin: "token-number-\(index)").status
        }
        let limited = try RawHTTP.command(server.port, token: token, Self.add, stdin: "one-too-many")
        let read = try RawHTTP.read(server.port, token: token, Self.list)
        let otherAccount = try RawHTTP.command(server.port, token: other, Self.add, stdin: "bobs-own-token")

        #expect(statuses == Array(repeating: 200, count: 12))
        #expect(limited.status == 429)
        let retryAfter = try #require(limited.headers["retry-after"].flatMap(Int.init))
        #expect((1...5).contains(retryAfter))
        #expect(limited.error == "rate limited; retry in \(retryAfter)s")
        #expect(limited.json?["exit_code"] == nil)
        #expect(read.status == 200)
        #expect(otherAccount.status == 200)
        #expect(server.devices(of: "alice").count == 12)
    }

    @Test("the write limit shared with SSH and the web: exit 4 / 403, a Go duration, no Retry-After")
    func writeLimit() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        let other = server.mintToken(for: "bob")
        server.chargeWrites(60, to: "alice")

        let refused = try RawHTTP.command(server.port, token: token, Self.add, stdin: "3f2a9c01aabbccdd")
        let read = try RawHTTP.read(server.port, token: token, Self.list)
        let otherAccount = try RawHTTP.command(server.port, token: other, Self.add, stdin: "bobs-own-token")

        #expect(refused.status == 403)
        #expect(refused.exitCode == 4)
        #expect(refused.headers["retry-after"] == nil)
        let message = try #require(refused.error)
        let prefix = "too many writes: 60 a minute per account; try again in "
        #expect(message.hasPrefix(prefix))
        // Tokens just under 1 after the charge: (1 - tokens) / 1 s + 1 s rounds to 2 s, or to
        // 1 s once half a token has come back on a slow machine.
        #expect(["2s", "1s"].contains(String(message.dropFirst(prefix.count))), "\(message)")
        #expect(read.status == 200)
        #expect(otherAccount.status == 200)
        #expect(server.devices().map(\.owner) == ["bob"])
    }

    @Test("with enforceRateLimits off neither limit refuses")
    func limitsOff() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        server.enforceRateLimits = false
        let token = server.mintToken(for: "alice")
        server.chargeWrites(60, to: "alice")

        let statuses = try (0..<15).map { index in
            try RawHTTP.command(server.port, token: token, Self.add, stdin: "token-number-\(index)").status
        }

        #expect(statuses == Array(repeating: 200, count: 15))
    }

    // MARK: Faults

    @Test("a status fault answers once, for the matching command only")
    func statusFault() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.inject(.status(502, body: "<html>Bad Gateway</html>"), command: "notifications device add")
        server.inject(.status(503, body: "busy", headers: ["Retry-After": "7"]), user: "bob")

        let read = try RawHTTP.read(server.port, token: token, Self.list)
        let failed = try RawHTTP.command(server.port, token: token, Self.add, stdin: "3f2a9c01aabbccdd")
        let retried = try RawHTTP.command(server.port, token: token, Self.add, stdin: "3f2a9c01aabbccdd")
        let bobs = try RawHTTP.read(server.port, token: server.mintToken(for: "bob"), ["whoami"])

        #expect(read.status == 200)
        #expect(failed.status == 502)
        #expect(failed.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(failed.text == "<html>Bad Gateway</html>")
        #expect(retried.status == 200)
        #expect(bobs.status == 503)
        #expect(bobs.headers["retry-after"] == "7")
        #expect(server.devices().count == 1)
    }

    @Test("reset and down close the connection without a reply")
    func resetAndDown() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.inject(.reset)

        #expect(throws: RawHTTP.Failure.self) { try RawHTTP.read(server.port, token: token, ["whoami"]) }
        server.isDown = true
        #expect(throws: RawHTTP.Failure.self) { try RawHTTP.read(server.port, token: token, ["whoami"]) }
        server.isDown = false
        #expect(try RawHTTP.read(server.port, token: token, ["whoami"]).status == 200)
        #expect(server.requests().map(\.status) == [0, 200])
    }

    @Test("garbage, truncated JSON and protocol version 2 are not valid version-1 envelopes")
    func damagedBodies() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.inject(.garbage, times: 1)
        server.inject(.truncatedJSON, command: "notifications device add")
        server.inject(.protocolVersion(2), command: "whoami")

        let garbage = try RawHTTP.read(server.port, token: token, Self.list)
        let truncated = try RawHTTP.command(server.port, token: token, Self.add, stdin: "3f2a9c01aabbccdd")
        let future = try RawHTTP.read(server.port, token: token, ["whoami"])

        #expect(garbage.status == 200)
        #expect(garbage.json == nil)
        #expect(truncated.status == 200)
        #expect(truncated.json == nil)
        #expect(truncated.text.hasPrefix(#"{"protocol_version":1"#))
        #expect(server.devices().count == 1, "a truncated answer still ran the command")
        #expect(future.json?["protocol_version"] as? Int == 2)
    }

    @Test("limit faults: 429 with Retry-After, and the write limit's 403 without it")
    func limitFaults() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.inject(.rateLimited(retryAfter: 3))
        server.inject(.writeLimited(seconds: 12))
        server.inject(.writeLimited(seconds: 61))

        let limited = try RawHTTP.command(server.port, token: token, Self.add, stdin: "3f2a9c01aabbccdd")
        let writeLimited = try RawHTTP.command(server.port, token: token, Self.add, stdin: "3f2a9c01aabbccdd")
        let longer = try RawHTTP.command(server.port, token: token, Self.add, stdin: "3f2a9c01aabbccdd")

        #expect(limited.status == 429)
        #expect(limited.headers["retry-after"] == "3")
        #expect(limited.error == "rate limited; retry in 3s")
        #expect(writeLimited.status == 403)
        #expect(writeLimited.exitCode == 4)
        #expect(writeLimited.error == "too many writes: 60 a minute per account; try again in 12s")
        #expect(writeLimited.headers["retry-after"] == nil)
        #expect(longer.error == "too many writes: 60 a minute per account; try again in 1m1s")
        #expect(server.devices().isEmpty)
    }

    @Test("a hang and latency are cut off by the client's timeout, and stop() still returns")
    func hangAndLatency() throws {
        let server = try FakeGitbayServer()
        let token = server.mintToken(for: "alice")
        server.inject(.hang, command: "whoami")

        let hung = try RawHTTP(port: server.port, timeout: .milliseconds(200))
        #expect(throws: RawHTTP.Failure.timedOut) {
            try hung.send("GET", RawHTTP.readTarget(["whoami"]), headers: RawHTTP.authorization(token))
        }
        server.latency = .seconds(30)
        let slow = try RawHTTP(port: server.port, timeout: .milliseconds(200))
        #expect(throws: RawHTTP.Failure.timedOut) {
            try slow.send("GET", RawHTTP.readTarget(Self.list), headers: RawHTTP.authorization(token))
        }

        server.stop()
        // The port may already belong to another test's server (ports are handed out again at
        // once), so what is checked is that this one answers nothing more.
        let answered = server.requests().count
        _ = try? RawHTTP(port: server.port, timeout: .milliseconds(200))
            .send("GET", RawHTTP.readTarget(["whoami"]), headers: RawHTTP.authorization(token))
        #expect(server.requests().count == answered)
    }

    @Test("a stopped server's port can be bound again at once")
    func restartOnSamePort() throws {
        let first = try FakeGitbayServer()
        let token = first.mintToken(for: "alice")
        _ = try RawHTTP.read(first.port, token: token, ["whoami"])
        first.stop()

        let second = try FakeGitbayServer(port: first.port)
        defer { second.stop() }
        let fresh = second.mintToken(for: "alice")

        #expect(second.port == first.port)
        #expect(second.baseURL == "http://127.0.0.1:\(first.port)")
        #expect(try RawHTTP.read(second.port, token: fresh, ["whoami"]).status == 200)
    }
}
