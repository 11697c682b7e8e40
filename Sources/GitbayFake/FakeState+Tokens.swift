import Foundation

/// `token create`, `token list` and `token revoke`, run as the account of the API token or the
/// SSH key that sent them.
extension FakeState {
    /// Runs one of the token commands with its flags and positionals already split.
    mutating func runToken(_ command: GitbayCommand, flags: [String: String], positionals: [String], user: String) -> CommandOutcome {
        switch command {
        case .tokenCreate:
            guard positionals.isEmpty else { return .failure(exitCode: 2, "usage: token create --name <name> [--scope full|read] [--ttl 30d]") }
            return createToken(flags: flags, user: user)
        case .tokenList:
            guard positionals.isEmpty else { return Self.noArguments(command) }
            return .success(.array(tokenList(of: user)))
        case .tokenRevoke:
            guard positionals.count == 1 else { return .failure(exitCode: 2, "usage: token revoke <name>") }
            return revokeToken(named: positionals[0], of: user)
        default:
            preconditionFailure("\(command.name) is not a token command")
        }
    }

    /// A new `gb_<40 hex>` token.
    static func newTokenValue() -> String {
        var generator = SystemRandomNumberGenerator()
        return "gb_"
            + (0..<20).map { _ in
                let byte = UInt8.random(in: 0...255, using: &generator)
                return (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }.joined()
    }

    /// `token create --name <n> [--scope full|read] [--ttl <lifetime>]`: the token is shown once.
    private mutating func createToken(flags: [String: String], user: String) -> CommandOutcome {
        guard let name = flags["--name"], !name.isEmpty else {
            return .failure(exitCode: 2, "token create needs --name <name>")
        }
        guard let scope = TokenScope(rawValue: flags["--scope"] ?? "full") else {
            return .failure(exitCode: 2, "invalid --scope \"\(flags["--scope"] ?? "")\": want full or read")
        }
        var lifetime: Duration?
        if let text = flags["--ttl"] {
            lifetime = TokenLifetime.parse(text)
            guard lifetime != nil else {
                return .failure(exitCode: 2, "invalid --ttl \"\(text)\": want a positive Go duration (720h, 90m) or a number of days (30d)")
            }
        }
        guard !hasToken(named: name, of: user) else {
            return .failure(exitCode: 1, "you already have a token named \"\(name)\"; pick another --name or run `token revoke \(name)`")
        }
        let value = Self.newTokenValue()
        addToken(value, for: user, scope: scope, name: name, lifetime: lifetime)
        return .success(.object([("name", .string(name)), ("scope", .string(scope.rawValue)), ("token", .string(value))]))
    }

    /// `token list`: the account's tokens in creation order, expired ones included, never the
    /// token itself; `expires_at` and `last_used_at` only when set.
    private func tokenList(of user: String) -> [JSONValue] {
        tokens.values.filter { $0.user == user }.sorted { $0.serial < $1.serial }.map { token in
            var members: [(String, JSONValue)] = [
                ("name", .string(token.name)), ("scope", .string(token.scope.rawValue)),
                ("created_at", .string(Self.timestamp(token.createdAt))),
            ]
            if let expiresAt = token.expiresAt { members.append(("expires_at", .string(Self.timestamp(expiresAt)))) }
            if let lastUsedAt = token.lastUsedAt { members.append(("last_used_at", .string(Self.timestamp(lastUsedAt)))) }
            return .object(members)
        }
    }

    /// `token revoke <name>`: the token that sent the request may revoke itself; the request
    /// still succeeds, and the next one is refused.
    private mutating func revokeToken(named name: String, of user: String) -> CommandOutcome {
        guard let token = tokens.values.first(where: { $0.user == user && $0.name == name }) else {
            return .failure(exitCode: 3, "no token named \"\(name)\"; see `token list`")
        }
        revokeToken(token.value)
        return .success(.object([("revoked", .string(name))]))
    }
}
