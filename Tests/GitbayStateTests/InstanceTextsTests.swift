import Testing

@testable import GitbayState
@testable import GitbaySupport

@Suite("Instance URLs read by their stored bytes")
struct InstanceTextsTests {
    @Test("each stored text gives the instance it parses as, the first 32 found by their bytes and the rest by string, again and again")
    func manyInstances() throws {
        var texts = InstanceTexts()
        let stored = (1...40).map { "http://127.0.0.1:\(40_000 + $0)" } + ["https://gitbay.org", "https://[::1]:8443"]
        for _ in 0..<3 {
            for text in stored.reversed() + stored {
                let instance = Array(text.utf8).withUnsafeBufferPointer { texts.instance($0) }
                #expect(instance == (try InstanceURL(parsing: text)))
            }
        }
    }
}
