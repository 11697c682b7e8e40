import GitbaySupport

/// Why a push payload cannot be resolved to an account: what is wrong with it.
package enum PayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Standard input held nothing but whitespace.
    case empty
    /// The text is not JSON.
    case notJSON
    /// The JSON is not an object.
    case notAnObject
    /// A required field (`instance`, `user`, `path`) is absent, null or empty.
    case missing(String)
    /// A field has the wrong JSON type.
    case wrongType(field: String, expected: String)
    /// `instance` is not an instance URL this program accepts.
    case badInstance(InstanceURL.ParseError)

    package var description: String {
        switch self {
        case .empty:
            "no push payload on stdin; pipe the notification's JSON in, e.g. `printf %s \"$PAYLOAD\" | gitbay-sync resolve`"
        case .notJSON:
            "the push payload is not JSON"
        case .notAnObject:
            "the push payload is not a JSON object"
        case .missing(let field):
            "the push payload has no `\(field)`; a gitbay push carries `instance`, `user` and `path`"
        case .wrongType(let field, let expected):
            "the push payload's `\(field)` is not \(expected)"
        case .badInstance(let error):
            "the push payload's `instance`: \(error)"
        }
    }
}
