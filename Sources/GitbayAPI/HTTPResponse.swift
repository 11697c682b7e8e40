/// One HTTP response as a transport received it. Redirects are never followed, so this is
/// always the first server's answer.
package struct HTTPResponse: Sendable, Equatable {
    package var status: Int
    /// Header fields by lower-cased name; a repeated field's values are joined with `, `.
    package var headers: [String: String]
    package var body: [UInt8]

    package init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
