/// The form gitbay gives user names (the server's `ValidateOwnerName`, applied at registration
/// and rename): lowercase ASCII letters, digits, `.`, `-` and `_`, starting with a letter or a
/// digit, at most 63 characters, and not ending in `.git` or `.atom`. A real server never
/// answers `whoami` with anything else, so a name outside it comes from something that is not
/// gitbay, and is refused before it is stored, shown or typed anywhere.
package enum UserName {
    /// The longest name the server's rule allows (its documentation says 63; its pattern, one
    /// fewer: the longer bound refuses nothing the server gives).
    package static let maximumLength = 63

    /// Whether `name` has the form of a gitbay user name.
    package static func isValid(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        guard let first = scalars.first, scalars.count <= maximumLength, isLetterOrDigit(first) else { return false }
        guard scalars.allSatisfy({ isLetterOrDigit($0) || $0 == "." || $0 == "-" || $0 == "_" }) else { return false }
        return !name.hasSuffix(".git") && !name.hasSuffix(".atom")
    }

    /// The rule in words, for an error that refuses a name.
    package static let rule =
        "lowercase letters, digits, `.`, `-` and `_`, starting with a letter or digit, at most 63 characters"

    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
