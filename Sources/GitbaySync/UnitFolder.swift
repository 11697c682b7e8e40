import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder the service files go in, and writing them all or none: each file goes to a
/// temporary name first and is renamed into place only when every one was written. Only into
/// a folder that passes `OwnershipRule`: whoever else could write it would choose what the
/// service manager runs as the user.
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

    /// Why nothing was written into the folder: someone else could change it, or creating it
    /// would put a folder of the user's inside another user's (`HOME` theirs under `sudo -E`).
    struct Refused: Error, CustomStringConvertible {
        enum Reason {
            case unsafe(OwnershipRule.Problem)
            case foreignAncestor(ancestor: String, owner: UInt32)
        }

        let path: String
        let reason: Reason

        var description: String {
            switch reason {
            case .unsafe(let problem):
                "\(problem), so someone else could change the units that run as you; nothing was written. Fix: \(problem.fix)"
            case .foreignAncestor(let ancestor, let owner):
                "cannot create \(path): \(ancestor) belongs to user id \(owner), not to you, and gitbay-sync creates no folder in another user's; nothing was written. Under sudo, `sudo -H` sets HOME to the target user's own home (with `sudo -E` it stays the calling user's); or set XDG_CONFIG_HOME to a folder of your own"
            }
        }
    }

    func filePath(_ name: String) -> String { path + "/" + name }

    /// Why the folder, when it is there, may not be written into; nil when it may (or is not
    /// there, or is no folder: writing fails then). It is reached through links in its path, as
    /// the service manager reaches it.
    var trustProblem: OwnershipRule.Problem? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return OwnershipRule.problem(info, path: path)
    }

    /// Writes every file (mode 0644), replacing older versions, or none of them. Throws
    /// `Refused` before anything is written when the folder fails `OwnershipRule`, else
    /// `WriteFailure`.
    func writeAll(_ files: [ServiceUnits.File]) throws {
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

    /// Creates the folder (and those missing above it) 0700 inside a folder of the user's own,
    /// or checks the one that is there.
    private func makeFolder() throws {
        if let problem = trustProblem { throw Refused(path: path, reason: .unsafe(problem)) }
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw WriteFailure(path: path, reason: "not a folder") }
            guard access(path, W_OK | X_OK) == 0 else { throw WriteFailure(path: path, reason: Self.errnoText()) }
            return
        }
        do {
            try MissingFolders.create(path)
        } catch {
            switch error {
            case .foreignAncestor(_, let ancestor, let owner): throw Refused(path: path, reason: .foreignAncestor(ancestor: ancestor, owner: owner))
            case .cannotCreate(let folder, let detail): throw WriteFailure(path: folder, reason: "the folder cannot be created: \(detail)")
            }
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
