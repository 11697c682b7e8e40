import Testing

@testable import GitbayAPI

@Suite("UserName")
struct UserNameTests {
    @Test(
        "takes the names gitbay gives",
        arguments: ["alice", "a", "0day", "a.b-c_d", "bob.gitx", String(repeating: "a", count: 63)])
    func valid(_ name: String) {
        #expect(UserName.isValid(name))
    }

    @Test(
        "refuses every other name",
        arguments: [
            "", "Alice", "-uX", ".alice", "_alice", "alice root", "al\u{1B}ice", "$(touch${IFS}PWNED)", "alice.git", "alice.atom",
            "élise", "alice\n", String(repeating: "a", count: 64),
        ])
    func invalid(_ name: String) {
        #expect(!UserName.isValid(name))
    }
}
