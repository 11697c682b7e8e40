import FoundationEssentials
import GitbaySupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder the service files go in, and writing them all or none: each file goes to a
/// temporary name first and is renamed into place only when every one was written.
struct UnitFolder: Sendable {
    let path: String

    /// `$XDG_CONFIG_HOME/systemd/user` (else `~/.config/systemd/user`), or
    /// `~/Library/LaunchAgents`.
    static func resolve(_ platform: ServiceUnits.Platform, environment: [String: String]) -> UnitFolder {
        let home = HomeFolder.path(environment: environment)
        switch platform {
        case .systemd:
            if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
                return UnitFolder(path: config + "/systemd/user")
            }
            return UnitFolder(path: home + "/.config/systemd/user")
        case .launchd:
            return UnitFolder(path: home + "/Library/LaunchAgents")
        }
    }

    /// Why the files could not be written; nothing was left behind.
    struct WriteFailure: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot write \(path) (\(reason))" }
    }

    func filePath(_ name: String) -> String { path + "/" + name }

    /// Writes every file (mode 0644), replacing older versions, or none of them.
    func writeAll(_ files: [ServiceUnits.File]) throws(WriteFailure) {
        try makeFolder()
        var temporaries: [(temporary: String, final: String)] = []
        do {
            for file in files {
                let final = filePath(file.name)
                let temporary = path + "/.\(file.name).\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
                try Self.writeFile(file.contents, to: temporary)
                temporaries.append((temporary, final))
            }
        } catch {
            temporaries.forEach { unlink($0.temporary) }
            throw error
        }
        var placed: [String] = []
        for (index, pair) in temporaries.enumerated() {
            let existed = access(pair.final, F_OK) == 0
            guard rename(pair.temporary, pair.final) == 0 else {
                let reason = Self.errnoText()
                temporaries[index...].forEach { unlink($0.temporary) }
                placed.forEach { unlink($0) }
                throw WriteFailure(path: pair.final, reason: reason)
            }
            if !existed { placed.append(pair.final) }
        }
    }

    /// Removes the named files, and the links `systemctl enable` made to them in `*.wants`
    /// folders; returns what was removed.
    func removeAll(_ names: [String], wantedBy: [String: String] = [:]) throws(WriteFailure) -> [String] {
        var removed: [String] = []
        for name in names {
            if let target = wantedBy[name] {
                let link = path + "/\(target).wants/" + name
                var info = stat()
                if lstat(link, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
                    guard unlink(link) == 0 else { throw WriteFailure(path: link, reason: Self.errnoText()) }
                    removed.append(link)
                }
            }
            let file = filePath(name)
            var info = stat()
            guard lstat(file, &info) == 0 else { continue }
            guard unlink(file) == 0 else { throw WriteFailure(path: file, reason: Self.errnoText()) }
            removed.append(file)
        }
        return removed
    }

    /// Of the named files, the paths of those present that `service install` did not write
    /// (no header, or not a regular file): they are left alone unless the user says `--force`.
    func handWritten(_ names: [String]) -> [String] {
        names.map(filePath).filter { path in
            var info = stat()
            guard lstat(path, &info) == 0 else { return false }
            guard (info.st_mode & S_IFMT) == S_IFREG, let text = Self.readText(path) else { return true }
            return !ServiceUnits.isGenerated(text)
        }
    }

    /// A file's text; nil when there is no such file or it cannot be read.
    static func readText(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    private func makeFolder() throws(WriteFailure) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw WriteFailure(path: path, reason: "not a folder") }
            guard access(path, W_OK | X_OK) == 0 else { throw WriteFailure(path: path, reason: Self.errnoText()) }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw WriteFailure(path: path, reason: "the folder cannot be created: \(error)")
        }
    }

    private static func writeFile(_ contents: String, to path: String) throws(WriteFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw WriteFailure(path: path, reason: errnoText()) }
        defer { close(descriptor) }
        let bytes = Array(contents.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = errnoText()
                unlink(path)
                throw WriteFailure(path: path, reason: reason)
            }
            offset += written
        }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
