import Testing

@testable import GitbayAPI

@Suite("Response header lines")
struct HeaderLineTests {
    static func headers(_ lines: [String]) -> [String: String] {
        let transfer = CurlTransfer(maxResponseBytes: 1024)
        for line in lines {
            Array(line.utf8).withUnsafeBytes { transfer.receiveHeaderLine($0) }
        }
        return transfer.headers
    }

    @Test("names are lower-cased, the blanks around values and the line ending dropped")
    func nameAndValue() {
        let headers = Self.headers(["HTTP/1.1 200 OK\r\n", "ETag: \"abc\"\r\n", "Retry-After:\t 30 \t\r\n", "X-Empty:\r\n", "\r\n"])
        #expect(headers == ["etag": "\"abc\"", "retry-after": "30", "x-empty": ""])
    }

    @Test("a repeated field is joined with a comma; a line without a colon or a name is ignored")
    func repeatedAndMalformed() {
        let headers = Self.headers(["HTTP/2 304\r\n", "Vary: A\r\n", "VARY: B\r\n", "no colon here\r\n", ": no name\r\n"])
        #expect(headers == ["vary": "A, B"])
    }

    @Test("a status line starts a new block: a proxy's answer is forgotten")
    func newBlock() {
        let headers = Self.headers(["HTTP/1.1 200 Connection established\r\n", "Via: proxy\r\n", "\r\n", "HTTP/1.1 200 OK\r\n", "ETag: x\n"])
        #expect(headers == ["etag": "x"])
    }
}
