import Testing

@testable import GitbayAPI
@testable import GitbayCurl

@Suite("Response header lines")
struct HeaderLineTests {
    static func headers(_ lines: [String], keeping names: Set<String>? = nil) -> [String: String] {
        let transfer = CurlTransfer(maxResponseBytes: 1024, keeping: names)
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

    @Test("only the fields named are kept, whatever their case on the wire; the client keeps ETag and Retry-After")
    func keptFields() {
        let lines = ["HTTP/2 429\r\n", "ETAG: \"t\"\r\n", "Retry-After: 7\r\n", "Content-Type: text/plain\r\n", "Vary: A\r\n"]
        #expect(Self.headers(lines, keeping: ["etag", "Vary"]) == ["etag": "\"t\"", "vary": "A"])
        #expect(Self.headers(lines, keeping: GitbayClient.responseHeaders) == ["etag": "\"t\"", "retry-after": "7"])
        #expect(Self.headers(lines, keeping: []) == [:])
    }
}
