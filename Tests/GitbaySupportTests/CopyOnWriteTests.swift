import Testing

@testable import GitbaySupport

@Suite("Copy on write")
struct CopyOnWriteTests {
    struct Fields: Equatable {
        var name: String
        var count: Int
    }

    @Test("a copy shares the value until one of them changes it; the other keeps what it had")
    func copies() {
        var first = CopyOnWrite(Fields(name: "alice@one.example.com:8443", count: 1))
        var second = first
        #expect(second.sharesStorage(with: first))
        second.value.count += 1
        #expect(!second.sharesStorage(with: first))
        #expect(first.value == Fields(name: "alice@one.example.com:8443", count: 1))
        #expect(second.value == Fields(name: "alice@one.example.com:8443", count: 2))
        second.value.name = "bob@two.example.com"
        first.value.count = 7
        #expect(first.value == Fields(name: "alice@one.example.com:8443", count: 7))
        #expect(second.value == Fields(name: "bob@two.example.com", count: 2))
    }
}
