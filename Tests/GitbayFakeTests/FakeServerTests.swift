import Foundation
import GitbayFake
import TestSupport
import Testing

/// The fake gitbay server, spoken to over real HTTP on 127.0.0.1 with `RawHTTP`.
@Suite("Fake gitbay server")
struct FakeServerTests {
    static let add = ["notifications", "device", "add"]
    static let list = ["notifications", "device", "list"]
    static let remove = ["notifications", "device", "remove"]

    /// A device add with a label, as gitbay-sync sends it.
    static func addArgv(label: String) -> [String] { add + ["--label", label] }

    // MARK: Envelope and exit codes

    @Test("whoami answers the envelope with the account, an ETag and no-cache")
    func whoami() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")

        let response = try RawHTTP.read(server.port, token: token, ["whoami", "--json"])

        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["cache-control"] == "private, no-cache")
        #expect(response.headers["etag"]?.hasPrefix("\"") == true)
        let json = try #require(response.json)
        #expect(json["protocol_version"] as? Int == 1)
        #expect(response.exitCode == 0)
        #expect(response.dataObject?["username"] as? String == "alice")
        #expect(response.dataObject?["admin"] as? Bool == false)
        #expect(response.dataObject?["key_scope"] as? String == "full")
        #expect(response.text.hasPrefix(#"{"protocol_version":1,"data":"#))
    }

    /// One row of the exit-code table: a request and the status and exit code it must get.
    struct ExitCase: Sendable, CustomTestStringConvertible {
        let name: String
        let argv: [String]
        var stdin: String? = "3f2a9c01aabbccdd"
        var overRead = false
        let status: Int
        let exitCode: Int
        var message: String? = nil

        var testDescription: String { name }
    }

    static let exitCases: [ExitCase] = [
        ExitCase(name: "an unknown command over POST is dispatched", argv: ["frobnicate"], status: 400, exitCode: 2),
        ExitCase(name: "--flag=value is an unknown flag", argv: add + ["--label=laptop"], status: 400, exitCode: 2),
        ExitCase(name: "an unknown flag", argv: add + ["--name", "x"], status: 400, exitCode: 2),
        ExitCase(name: "a positional token", argv: add + ["3f2a9c01aabbccdd"], status: 400, exitCode: 2),
        ExitCase(
            name: "blank stdin", argv: add, stdin: " \n\t", status: 400, exitCode: 2,
            message: "no device token on stdin"),
        ExitCase(name: "no stdin at all", argv: add, stdin: nil, status: 400, exitCode: 2, message: "no device token on stdin"),
        ExitCase(
            name: "a 513-byte token", argv: add, stdin: String(repeating: "a", count: 513), status: 400, exitCode: 2,
            message: "device token is too long"),
        ExitCase(name: "a 512-byte token is fine", argv: add, stdin: String(repeating: "a", count: 512), status: 200, exitCode: 0),
        ExitCase(name: "a non-numeric id", argv: remove + ["laptop"], status: 400, exitCode: 2),
        ExitCase(name: "a missing id", argv: remove + ["99"], status: 404, exitCode: 3),
        ExitCase(name: "a failing read over GET /read", argv: list + ["all"], overRead: true, status: 400, exitCode: 2),
        ExitCase(name: "list takes no arguments", argv: list + ["all"], status: 400, exitCode: 2),
        ExitCase(name: "push wants on or off", argv: ["notifications", "settings", "push", "maybe"], status: 400, exitCode: 2),
        ExitCase(name: "--json anywhere is stripped", argv: ["--json", "notifications", "device", "--json", "list"], status: 200, exitCode: 0),
    ]

    @Test("exit codes map to HTTP statuses", arguments: exitCases)
    func exitCodes(_ example: ExitCase) throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")

        let response =
            example.overRead
            ? try RawHTTP.read(server.port, token: token, example.argv)
            : try RawHTTP.command(server.port, token: token, example.argv, stdin: example.stdin)

        #expect(response.status == example.status)
        #expect(response.exitCode == example.exitCode)
        #expect(response.json?["protocol_version"] as? Int == 1)
        if example.exitCode != 0 {
            #expect(response.error?.isEmpty == false)
            #expect(response.data == nil)
        }
        if let message = example.message {
            #expect(response.error == message)
        }
    }

    /// A request refused before dispatch: its status and the start of its error.
    struct RefusalCase: Sendable, CustomTestStringConvertible {
        let name: String
        let method: String
        let target: String
        var body: String = ""
        let status: Int
        let error: String

        var testDescription: String { name }
    }

    static let refusalCases: [RefusalCase] = [
        RefusalCase(
            name: "an unknown command over GET /read", method: "GET", target: RawHTTP.readTarget(["frobnicate", "now"]),
            status: 404, error: #"unknown command "frobnicate now""#),
        RefusalCase(
            name: "a write over GET /read", method: "GET", target: RawHTTP.readTarget(add + ["--label", "x"]),
            status: 400, error: "`notifications device add` changes state"),
        RefusalCase(name: "GET /read without argv", method: "GET", target: "/api/v1/read", status: 400, error: "no command"),
        RefusalCase(
            name: "GET /read with only --json", method: "GET", target: RawHTTP.readTarget(["--json"]),
            status: 400, error: "no command"),
        RefusalCase(name: "POST without argv", method: "POST", target: "/api/v1/cmd", body: #"{"stdin":"x"}"#, status: 400, error: "no command"),
        RefusalCase(name: "POST with an empty argv", method: "POST", target: "/api/v1/cmd", body: #"{"argv":[]}"#, status: 400, error: "no command"),
    ]

    @Test("answers refused before dispatch carry no exit_code, and come after authentication", arguments: refusalCases)
    func refusedBeforeDispatch(_ example: RefusalCase) throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")

        let response = try RawHTTP(port: server.port).send(
            example.method, example.target, headers: RawHTTP.authorization(token), body: Array(example.body.utf8))
        let anonymous = try RawHTTP(port: server.port).send(example.method, example.target, body: Array(example.body.utf8))

        #expect(response.status == example.status)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.json?["protocol_version"] as? Int == 1)
        #expect(response.json?["exit_code"] == nil)
        #expect(response.data == nil)
        #expect(response.error?.hasPrefix(example.error) == true, "\(response.text)")
        #expect(response.headers["etag"] == nil)
        #expect(anonymous.status == 401)
        #expect(server.devices().isEmpty)
    }

    // MARK: Authentication

    @Test("no bearer token answers 401 with a challenge and no exit_code")
    func missingToken() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")

        for headers in [[], [("Authorization", "Basic \(token)")], [("Authorization", "bearer \(token)")]] {
            let response = try RawHTTP(port: server.port).send("GET", RawHTTP.readTarget(["whoami"]), headers: headers)
            #expect(response.status == 401)
            #expect(response.headers["www-authenticate"] == #"Bearer realm="gitbay api""#)
            #expect(response.error?.hasPrefix("missing bearer token; ") == true)
            #expect(response.json?["exit_code"] == nil)
        }
    }

    @Test("unknown and revoked tokens answer 401 invalid or expired token")
    func invalidToken() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let revoked = server.mintToken(for: "alice")
        server.revokeToken(revoked)

        for token in ["gb_0000", revoked] {
            let response = try RawHTTP.command(server.port, token: token, ["whoami"])
            #expect(response.status == 401)
            #expect(response.error == "invalid or expired token")
            #expect(response.json?["exit_code"] == nil)
        }
        #expect(server.requests().allSatisfy { $0.user == nil })
    }

    @Test("a read-scope token reads but answers 403 exit 4 on a write")
    func readOnlyToken() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice", scope: .read)

        let listing = try RawHTTP.command(server.port, token: token, Self.list)
        let adding = try RawHTTP.command(server.port, token: token, Self.addArgv(label: "laptop"), stdin: "3f2a9c01aabbccdd")

        #expect(listing.status == 200)
        #expect(adding.status == 403)
        #expect(adding.exitCode == 4)
        #expect(adding.error?.hasPrefix("this token is read-only; ") == true)
        #expect(adding.error?.hasSuffix("mint one with --scope full") == true)
        #expect(server.devices().isEmpty)
    }

    // MARK: Devices

    @Test("re-adding a token keeps its id and added time; without --label the label is reset")
    func upsertSameUser() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")

        let first = try RawHTTP.command(server.port, token: token, Self.addArgv(label: "laptop"), stdin: "3f2a9c01aabbccdd\n")
        let before = try #require(server.devices().first)
        let relabelled = try RawHTTP.command(server.port, token: token, Self.addArgv(label: "work"), stdin: "  3f2a9c01aabbccdd")
        #expect(server.devices().first?.label == "work")
        let unlabelled = try RawHTTP.command(server.port, token: token, Self.add, stdin: "3f2a9c01aabbccdd")

        #expect(first.dataObject?["id"] as? Int == 1)
        #expect(first.dataObject?["status"] as? String == "registered")
        #expect(relabelled.dataObject?["id"] as? Int == 1)
        #expect(unlabelled.dataObject?["id"] as? Int == 1)
        let rows = server.devices()
        #expect(rows.count == 1)
        #expect(rows.first?.label == "")
        #expect(rows.first?.token == "3f2a9c01aabbccdd")
        #expect(rows.first?.added == before.added)
    }

    @Test("another user adding the same token moves the row, keeping its id")
    func upsertMovesRow() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let alice = server.mintToken(for: "alice")
        let bob = server.mintToken(for: "bob")

        _ = try RawHTTP.command(server.port, token: alice, Self.addArgv(label: "alice's phone"), stdin: "3f2a9c01aabbccdd")
        let moved = try RawHTTP.command(server.port, token: bob, Self.addArgv(label: "bob's phone"), stdin: "3f2a9c01aabbccdd")

        #expect(moved.dataObject?["id"] as? Int == 1)
        #expect(server.devices(of: "alice").isEmpty)
        #expect(server.devices(of: "bob").map(\.id) == [1])
        #expect(server.devices(of: "bob").first?.label == "bob's phone")
        let aliceList = try RawHTTP.read(server.port, token: alice, Self.list)
        #expect(aliceList.dataArray?.isEmpty == true)
    }

    @Test("ids are reused after the top row is deleted")
    func idReuse() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.insertDevice(owner: "bob", token: "bbbbbbbbbbbbbbbb", label: "bob")
        let top = server.insertDevice(owner: "bob", token: "cccccccccccccccc", label: "bob 2")
        server.deleteDevice(id: top)

        let response = try RawHTTP.command(server.port, token: token, Self.add, stdin: "aaaaaaaaaaaaaaaa")

        #expect(top == 2)
        #expect(response.dataObject?["id"] as? Int == 2)
        #expect(server.devices().map(\.owner) == ["bob", "alice"])
    }

    @Test("device list shows 8 bytes and an ellipsis, (short token), and the first added time")
    func listTruncation() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.insertDevice(owner: "alice", token: "3f2a9c01aabbccdd", label: "laptop")
        server.insertDevice(owner: "alice", token: "12345678", label: "short")
        server.insertDevice(owner: "alice", token: "éééééé", label: "multibyte")
        server.insertDevice(owner: "bob", token: "ffffffffffffffff", label: "not mine")

        let response = try RawHTTP.read(server.port, token: token, Self.list)
        let rows = try #require(response.dataArray)

        #expect(rows.map { $0["id"] as? Int } == [1, 2, 3])
        #expect(rows.map { $0["token"] as? String } == ["3f2a9c01\u{2026}", "(short token)", "éééé\u{2026}"])
        #expect(rows.first?["label"] as? String == "laptop")
        let added = try #require(rows.first?["added"] as? String)
        #expect(added.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
        let stored = try #require(server.devices().first?.added)
        #expect(abs(stored.timeIntervalSinceNow) < 60)
    }

    @Test("v1.32.0 mode: add returns no id and a short token is listed in full")
    func version1320() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        server.returnsDeviceID = false
        let token = server.mintToken(for: "alice")

        let added = try RawHTTP.command(server.port, token: token, Self.add, stdin: "abcd")
        let listed = try RawHTTP.read(server.port, token: token, Self.list)

        #expect(added.status == 200)
        #expect(added.dataObject?["status"] as? String == "registered")
        #expect(added.dataObject?["id"] == nil)
        #expect(listed.dataArray?.first?["token"] as? String == "abcd")
    }

    @Test("remove answers removed for an own row and 404 for a missing or foreign id")
    func remove() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        let own = server.insertDevice(owner: "alice", token: "aaaaaaaaaaaaaaaa", label: "mine")
        let foreign = server.insertDevice(owner: "bob", token: "bbbbbbbbbbbbbbbb", label: "bob's")

        let removed = try RawHTTP.command(server.port, token: token, Self.remove + [String(own)])
        let again = try RawHTTP.command(server.port, token: token, Self.remove + [String(own)])
        let theirs = try RawHTTP.command(server.port, token: token, Self.remove + [String(foreign)])

        #expect(removed.status == 200)
        #expect(removed.dataObject?["status"] as? String == "removed")
        for response in [again, theirs] {
            #expect(response.status == 404)
            #expect(response.exitCode == 3)
            #expect(response.error?.hasPrefix("no such device; ") == true)
        }
        #expect(server.devices().map(\.id) == [foreign])
    }

    @Test("push disabled on the instance answers exit 1 / 500 and stores nothing")
    func pushDisabled() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        server.pushEnabled = false
        let token = server.mintToken(for: "alice")

        let response = try RawHTTP.command(server.port, token: token, Self.add, stdin: "3f2a9c01aabbccdd")

        #expect(response.status == 500)
        #expect(response.exitCode == 1)
        #expect(response.error == "this instance does not send push notifications ([push] enabled = false); ask an admin")
        #expect(server.devices().isEmpty)
    }

    @Test("settings show and push off change only the caller's settings")
    func settings() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let token = server.mintToken(for: "alice")
        server.addUser("bob")

        let off = try RawHTTP.command(server.port, token: token, ["notifications", "settings", "push", "off"])
        let shown = try RawHTTP.read(server.port, token: token, ["notifications", "settings", "show"])

        #expect(off.dataObject?["push"] as? Bool == false)
        #expect(shown.dataObject?["push"] as? Bool == false)
        #expect(shown.dataObject?["mail"] as? Bool == true)
        #expect(server.pushSetting(of: "alice") == false)
        #expect(server.pushSetting(of: "bob") == true)
    }
}
