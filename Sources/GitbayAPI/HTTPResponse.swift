/// One HTTP response as a transport received it. Redirects are never followed, so this is
/// always the first server's answer.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header fields by lower-cased name; a repeated field's values are joined with `, `.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
