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

@Suite("resolve, end to end in process")
struct ResolveCommandTests {
    static func payload(instance: String, user: String, path: String = "owner/repo/issues/1", badge: Int? = 3) -> String {
        let aps = badge.map { #""aps":{"alert":{"title":"owner/repo","body":"alice opened issue #1"},"badge":\#($0)},"# } ?? ""
        return #"{\#(aps)"path":"\#(path)","instance":"\#(instance)","user":"\#(user)"}"#
    }

    /// bob signed in on two instances (two fake servers, so two ports of 127.0.0.1).
    static func twoBobs() async throws -> (CLIHarness, FakeGitbayServer, FakeGitbayServer, String, String) {
        let first = try FakeGitbayServer()
        let second = try FakeGitbayServer()
        let cli = try CLIHarness()
        let one = try await cli.login(first, "bob")
        let two = try await cli.login(second, "bob")
        first.resetRequests()
        second.resetRequests()
        return (cli, first, second, one, two)
    }

    @Test("the same user name on two instances resolves to the instance's account, with no request")
    func sameUserTwoInstances() async throws {
        let (cli, first, second, one, two) = try await Self.twoBobs()
        for (server, account) in [(first, one), (second, two)] {
            for instance in [server.baseURL, server.baseURL + "/"] {
                let result = await cli.run(["resolve", "--json"], stdin: Self.payload(instance: instance, user: "bob", path: "team/app/mrs/12"))
                #expect(result.code == 0, "\(result.err)")
                let json = try result.json()
                #expect(json["account"] as? String == account)
                #expect(json["instance"] as? String == server.baseURL)
                #expect(json["user"] as? String == "bob")
                #expect(json["state"] as? String == "active")
                #expect(json["path"] as? String == "team/app/mrs/12")
                #expect(json["badge"] as? Int == 3)
                let destination = try #require(json["destination"] as? [String: Any])
                #expect(destination["kind"] as? String == "mr")
                #expect(destination["repository"] as? String == "team/app")
                #expect(destination["number"] as? Int == 12)
                #expect(destination["url"] as? String == "\(server.baseURL)/team/app/mrs/12")
            }
        }
        #expect(first.requests().isEmpty)
        #expect(second.requests().isEmpty)
    }

    @Test("text output names the account, the screen and the URL")
    func text() async throws {
        let (cli, first, _, one, _) = try await Self.twoBobs()
        let result = await cli.run(["resolve"], stdin: Self.payload(instance: first.baseURL, user: "bob", path: "o/r/builds/7", badge: nil))
        #expect(result.code == 0)
        #expect(
            result.out.split(separator: "\n").map(String.init) == [
                "account: \(one)", "kind: build", "repository: o/r", "number: 7", "url: \(first.baseURL)/o/r/builds/7", "badge: 0",
            ])
    }

    @Test(
        "a path the app cannot route resolves the account with no destination",
        arguments: ["owner/repo", "owner/repo/wiki/Home", "owner/repo/merge_requests/3", "owner/repo/issues/x"])
    func unroutable(_ path: String) async throws {
        let (cli, first, _, one, _) = try await Self.twoBobs()
        let result = await cli.run(["resolve", "--json"], stdin: Self.payload(instance: first.baseURL, user: "bob", path: path))
        #expect(result.code == 0)
        let json = try result.json()
        #expect(json["account"] as? String == one)
        #expect(json["destination"] is NSNull)
        #expect(json["path"] as? String == path)
        let text = await cli.run(["resolve"], stdin: Self.payload(instance: first.baseURL, user: "bob", path: path))
        #expect(text.out.contains("destination: none"))
    }

    @Test("a push for no signed-in account exits 67 and names it")
    func noAccount() async throws {
        let (cli, first, _, _, _) = try await Self.twoBobs()
        let cases = [
            (first.baseURL, "carol"),
            ("http://localhost:\(first.port)", "bob"),
            ("https://gitbay.org", "bob"),
        ]
        for (instance, user) in cases {
            let result = await cli.run(["resolve"], stdin: Self.payload(instance: instance, user: user))
            #expect(result.code == ExitCode.noSuchAccount.rawValue)
            #expect(result.err.contains("not signed in here"))
            #expect(result.out.isEmpty)
        }
    }

    @Test(
        "a malformed payload exits 65 with what is wrong",
        arguments: [
            ("", "no push payload on stdin"),
            ("{oops", "not JSON"),
            (#"{"user":"bob","path":"o/r/issues/1"}"#, "no `instance`"),
            (#"{"instance":"https://gitbay.org","path":"o/r/issues/1"}"#, "no `user`"),
            (#"{"instance":"https://gitbay.org","user":"bob"}"#, "no `path`"),
            (#"{"instance":"gitbay dot org","user":"bob","path":"o/r/issues/1"}"#, "is not a URL"),
        ])
    func malformed(_ text: String, _ message: String) async throws {
        let cli = try CLIHarness()
        let result = await cli.run(["resolve"], stdin: text)
        #expect(result.code == ExitCode.dataError.rawValue)
        #expect(result.err.contains(message), "\(result.err)")
    }
}
