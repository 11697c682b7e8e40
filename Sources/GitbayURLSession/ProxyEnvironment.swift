/// Where URLSession is built on libcurl (Linux), libcurl takes a proxy from the environment
/// itself, whatever the session's `connectionProxyDictionary` says: these are the variables
/// it reads, and whether they would send a request for a loopback host through a proxy.
enum ProxyEnvironment {
    /// The variables libcurl takes a proxy from (`http_proxy` in lower case only).
    static let proxyVariables = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// Whether libcurl, reading `environment`, may send a request for `host` (lower-cased, an
    /// IPv6 literal without brackets) through a proxy: a proxy variable is set, and `no_proxy`
    /// (or `NO_PROXY`) names neither `*` nor the host. A proxy variable's scheme is not
    /// weighed, and a `no_proxy` entry counts only when it is the host itself: in doubt, yes.
    static func wouldProxy(host: String, environment: [String: String]) -> Bool {
        guard proxyVariables.contains(where: { !(environment[$0] ?? "").isEmpty }) else { return false }
        let exceptions = environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
        let named = exceptions.split(separator: ",").contains { entry in
            var name = Substring(entry.lowercased())
            while name.first == " " || name.first == "\t" { name = name.dropFirst() }
            while name.last == " " || name.last == "\t" { name = name.dropLast() }
            if name == "*" { return true }
            if name.first == "." { name = name.dropFirst() }
            if name.first == "[" && name.last == "]" { name = name.dropFirst().dropLast() }
            return name == host
        }
        return !named
    }
}
