/// Where an API token comes from, as every message that says so spells it out: the whole
/// command that mints one over gitbay's SSH access, as the account, with the instance's host
/// filled in.
package enum TokenMinting {
    /// The name a token minted by hand for gitbay-sync is given in these messages.
    package static let suggestedName = "gitbay-sync"

    /// `ssh git@HOST token create --name gitbay-sync --scope full` for the instance's host.
    package static func command(for instance: InstanceURL) -> String {
        command(host: instance.host)
    }

    /// The same for an account named `user@host`, `user@host:port` or `user@[v6]:port`.
    package static func command(forAccount name: String) -> String {
        var authority = Substring(name)
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring
        if authority.first == "[", let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
        } else {
            host = authority
        }
        return command(host: host.isEmpty ? "HOST" : String(host))
    }

    /// The command for `host` (an IPv6 literal without brackets, as ssh takes it after `git@`).
    package static func command(host: String) -> String {
        "ssh git@\(host) token create --name \(suggestedName) --scope full"
    }
}
