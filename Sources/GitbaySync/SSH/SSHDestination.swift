import GitbaySupport

/// Where gitbay's SSH access is: `user@host`, `user@host:port`, `user@[v6]:port`, or a host
/// alone (an alias of the user's ssh configuration, which then says the user). ssh is given
/// the port as `-p port` and the rest as its destination.
struct SSHDestination: Sendable, Equatable, CustomStringConvertible {
    let user: String?
    /// The host, an IPv6 literal without brackets.
    let host: String
    let port: Int?

    /// `git@` and the instance's host: where gitbay serves SSH.
    static func `default`(for instance: InstanceURL) -> SSHDestination {
        SSHDestination(user: "git", host: instance.host, port: nil)
    }

    /// The destination `login --ssh` was given and the account keeps (`sshDestination`), else
    /// the default for its instance.
    static func stored(_ text: String?, instance: InstanceURL) -> SSHDestination {
        text.flatMap { try? SSHDestination(parsing: $0) } ?? .default(for: instance)
    }

    /// Why a destination cannot be one.
    struct Malformed: Error, Equatable, CustomStringConvertible {
        let text: String
        let problem: String

        var description: String {
            "'\(text)' is not an SSH destination: \(problem); write user@host or user@host:port, e.g. git@gitbay.org:2222"
        }
    }

    init(user: String?, host: String, port: Int?) {
        self.user = user
        self.host = host
        self.port = port
    }

    init(parsing text: String) throws(Malformed) {
        var rest = Substring(text)
        var user: Substring?
        if let at = rest.lastIndex(of: "@") {
            user = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }
        if let user {
            guard !user.isEmpty, user.first != "-", user.allSatisfy(Self.isNameCharacter) else {
                throw Malformed(text: text, problem: "the user name holds characters other than letters, digits, '.', '_' and '-'")
            }
        }
        let (host, portText) = try Self.hostAndPort(rest, text: text)
        var port: Int?
        if let portText {
            guard portText.allSatisfy(\.isASCIIDigit), let number = Int(portText), (1...65535).contains(number) else {
                throw Malformed(text: text, problem: "the port is not a number from 1 to 65535")
            }
            port = number
        }
        self.init(user: user.map(String.init), host: String(host), port: port)
    }

    /// The host and the port's text; an IPv6 literal is written in brackets.
    private static func hostAndPort(_ rest: Substring, text: String) throws(Malformed) -> (Substring, Substring?) {
        if rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else { throw Malformed(text: text, problem: "a '[' is not closed") }
            let host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw Malformed(text: text, problem: "the brackets hold no IPv6 address")
            }
            guard after.isEmpty || after.first == ":" else { throw Malformed(text: text, problem: "only ':port' may follow ']'") }
            return (host, after.isEmpty ? nil : after.dropFirst())
        }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw Malformed(text: text, problem: "write an IPv6 address in brackets, as git@[::1]:22") }
        let host = parts[0]
        guard !host.isEmpty else { throw Malformed(text: text, problem: "it names no host") }
        guard host.first != "-", host.allSatisfy(isNameCharacter) else {
            throw Malformed(text: text, problem: "the host holds characters other than letters, digits, '.', '_' and '-'")
        }
        return (host, parts.count == 2 ? parts[1] : nil)
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "." || character == "_" || character == "-")
    }

    /// What ssh is given before `--`: `-p port` when there is one, then `user@host`.
    var arguments: [String] {
        (port.map { ["-p", String($0)] } ?? []) + [user.map { "\($0)@\(host)" } ?? host]
    }

    /// `ssh <destination> <words>` as the user would type it, each word quoted as a shell needs.
    func command(_ words: [String]) -> String {
        (["ssh"] + arguments + words).map(ShellWords.quoted).joined(separator: " ")
    }

    /// As it is written: `git@gitbay.org:2222`, `git@[::1]`.
    var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return (user.map { "\($0)@" } ?? "") + hostPart + (port.map { ":\($0)" } ?? "")
    }
}

extension Character {
    /// `0` to `9` only, unlike `isNumber`, which takes every script's digits.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
