/// Where a transfer's certificate authorities come from: the file and the folder libcurl is
/// given (CURLOPT_CAINFO, CURLOPT_CAPATH).
struct Authorities: Equatable {
    enum Source: Equatable {
        /// What libcurl's build uses unless told otherwise.
        case libcurlDefault
        /// Nothing from this source.
        case none
        case path(String)
    }

    let file: Source
    let folder: Source

    /// libcurl's own defaults: its file of authorities, and its folder when that holds them
    /// under OpenSSL's hashed names (`folder`: its folder whatever it holds, which a handle is
    /// given again to stand for the default).
    struct Defaults: Equatable, Sendable {
        var file: String?
        var hashedFolder: String?
        var folder: String?
    }

    /// `SSL_CERT_FILE` and `SSL_CERT_DIR`, when set, each replace libcurl's default file or
    /// folder, as they do for OpenSSL's own tools (naming the default itself replaces
    /// nothing). Without a file named, libcurl's default file is left out where its default
    /// folder holds the authorities under hashed names and is in use, by default or named by
    /// `SSL_CERT_DIR`.
    ///
    /// Why: where both exist (Debian and Ubuntu: /etc/ssl/certs and the ca-certificates.crt
    /// bundle in it, both written by update-ca-certificates from one list) they hold the same
    /// authorities, but a bundle is parsed whole for every new connection (libcurl keeps it
    /// only when no folder is set): about 140 certificates, some 40 ms of CPU each time with
    /// OpenSSL 3.0. A folder is looked up by name, reading the one or two a handshake needs.
    static func choose(file: String?, folder: String?, defaults: Defaults) -> Authorities {
        let file = file.flatMap { named in defaults.file.map { samePath(named, $0) } == true ? nil : named }
        let folderSource = folder.map(Source.path) ?? .libcurlDefault
        if let file { return Authorities(file: .path(file), folder: folderSource) }
        let systemFolderInUse = defaults.hashedFolder.map { system in folder.map { samePath($0, system) } ?? true } ?? false
        return Authorities(file: systemFolderInUse ? .none : .libcurlDefault, folder: folderSource)
    }

    /// Whether two spellings name one path, ignoring trailing slashes.
    private static func samePath(_ one: String, _ other: String) -> Bool {
        func trimmed(_ path: String) -> Substring.UTF8View {
            var path = Substring(path).utf8
            while path.count > 1, path.last == UInt8(ascii: "/") { path = path.dropLast() }
            return path
        }
        return trimmed(one).elementsEqual(trimmed(other))
    }
}
