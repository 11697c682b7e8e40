import TestSupport
import Testing

@testable import GitbaySupport
@testable import PushResolve

/// One row of the path routing table: nil when the app has no screen for the path.
struct RouteCase: Sendable, CustomTestStringConvertible {
    let path: String
    let expected: PushDestination?

    var testDescription: String { "'\(path)'" }

    init(_ path: String, _ expected: PushDestination?) {
        self.path = path
        self.expected = expected
    }
}

@Suite("Push path routing")
struct PushDestinationTests {
    static let cases: [RouteCase] = [
        RouteCase("owner/repo/issues/1", PushDestination(kind: .issue, owner: "owner", repository: "repo", number: 1)),
        RouteCase("owner/repo/mrs/12", PushDestination(kind: .mr, owner: "owner", repository: "repo", number: 12)),
        RouteCase("owner/repo/builds/345", PushDestination(kind: .build, owner: "owner", repository: "repo", number: 345)),
        RouteCase("my-org/repo.name_2/issues/7", PushDestination(kind: .issue, owner: "my-org", repository: "repo.name_2", number: 7)),
        RouteCase("Owner/Repo/mrs/007", PushDestination(kind: .mr, owner: "Owner", repository: "Repo", number: 7)),
        // A repository root, a wiki page.
        RouteCase("owner/repo", nil),
        RouteCase("owner/repo/wiki/Home", nil),
        // Wrong number of components.
        RouteCase("", nil),
        RouteCase("owner", nil),
        RouteCase("owner/repo/issues", nil),
        RouteCase("owner/repo/issues/1/comments", nil),
        RouteCase("/owner/repo/issues/1", nil),
        RouteCase("owner/repo/issues/1/", nil),
        RouteCase("owner//issues/1", nil),
        // Numbers that are not whole positive numbers.
        RouteCase("owner/repo/issues/abc", nil),
        RouteCase("owner/repo/issues/", nil),
        RouteCase("owner/repo/issues/0", nil),
        RouteCase("owner/repo/issues/-1", nil),
        RouteCase("owner/repo/issues/+1", nil),
        RouteCase("owner/repo/issues/1.5", nil),
        RouteCase("owner/repo/issues/1e3", nil),
        RouteCase("owner/repo/issues/ 1", nil),
        RouteCase("owner/repo/issues/\u{0663}", nil),
        RouteCase("owner/repo/issues/99999999999999999999", nil),
        // Sections the app does not open, or spelled otherwise.
        RouteCase("owner/repo/merge_requests/3", nil),
        RouteCase("owner/repo/pulls/3", nil),
        RouteCase("owner/repo/Issues/3", nil),
        RouteCase("owner/repo/issue/3", nil),
        // Names that would not stay inside the repository's URL.
        RouteCase("../repo/issues/1", nil),
        RouteCase("owner/../issues/1", nil),
        RouteCase("owner/./issues/1", nil),
        RouteCase("own er/repo/issues/1", nil),
        RouteCase("owner/re?po/issues/1", nil),
        RouteCase("owner/re%2Fpo/issues/1", nil),
        RouteCase("öwner/repo/issues/1", nil),
    ]

    @Test("routes a path to its screen, or to none", arguments: cases)
    func route(_ testCase: RouteCase) {
        #expect(PushDestination(path: testCase.path) == testCase.expected)
    }

    @Test(
        "the web URL is the instance, the repository, the path's section and the number",
        arguments: [
            ("https://gitbay.org", "owner/repo/issues/1", "https://gitbay.org/owner/repo/issues/1"),
            ("https://gitbay.org/", "owner/repo/mrs/12", "https://gitbay.org/owner/repo/mrs/12"),
            ("https://git.work.example:8443", "team/app/builds/345", "https://git.work.example:8443/team/app/builds/345"),
            ("http://127.0.0.1:8080", "o/r/issues/2", "http://127.0.0.1:8080/o/r/issues/2"),
        ])
    func webURL(_ instance: String, _ path: String, _ url: String) throws {
        let destination = try #require(PushDestination(path: path))
        #expect(destination.webURL(on: try InstanceURL(parsing: instance)) == url)
    }

    @Test("each kind has the section the app uses in paths")
    func sections() {
        #expect(PushDestination.Kind.allCases.map(\.section) == ["issues", "mrs", "builds"])
        #expect(PushDestination.Kind.allCases.map(\.rawValue) == ["issue", "mr", "build"])
    }
}
