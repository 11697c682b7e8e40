/// One HTTP response as `CurlTransport` received it. Redirects are never followed, so this is
/// always the first server's answer.
struct HTTPResponse: Sendable, Equatable {
    var status: Int
    /// Header fields by lower-cased name; a repeated field's values are joined with `, `.
    var headers: [String: String]
    var body: [UInt8]
}
