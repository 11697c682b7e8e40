#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The rule for what gitbay-sync runs or writes into in the user's world (the pre-remove hook,
/// the unit folder), as ssh and git apply it to their own files: it belongs to the effective
/// user or to root (who can change any file anyway), and neither its group nor other users can
/// write it. Whoever can change such a file decides what runs as this user.
package enum OwnershipRule {
    /// Why a path fails the rule.
    package enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// A symbolic link where none is followed.
        case symbolicLink(path: String)
        /// Another user than the effective one (or root) owns it.
        case foreignOwner(path: String, owner: UInt32)
        /// Its group or other users can write it.
        case writableByOthers(path: String, mode: UInt32)
        /// It is not the kind of file expected there (`expected`: "a regular file", "a folder").
        case wrongKind(path: String, expected: String)
        /// It could not be looked at, for another reason than not being there.
        case unreadable(path: String, detail: String)

        /// The path the problem is about.
        package var path: String {
            switch self {
            case .symbolicLink(let path), .foreignOwner(let path, _), .writableByOthers(let path, _), .wrongKind(let path, _),
                .unreadable(let path, _):
                path
            }
        }

        package var description: String {
            switch self {
            case .symbolicLink(let path): "\(path) is a symbolic link"
            case .foreignOwner(let path, let owner): "\(path) belongs to user id \(owner), not to you"
            case .writableByOthers(let path, let mode): "\(path) can be written by other users (mode \(String(mode, radix: 8)))"
            case .wrongKind(let path, let expected): "\(path) is not \(expected)"
            case .unreadable(let path, let detail): "\(path) cannot be looked at (\(detail))"
            }
        }

        /// What the user can do about it: a command where there is one.
        package var fix: String {
            switch self {
            case .symbolicLink(let path): "remove the link (`rm \(path)`) and put the file itself there"
            case .foreignOwner(let path, _):
                "once you have checked what it holds, make it yours (`sudo chown \(OwnershipRule.userName) \(path)`), or move it aside"
            case .writableByOthers(let path, _): "`chmod go-w \(path)`"
            case .wrongKind(let path, _): "move it aside (`mv \(path) \(path).old`)"
            case .unreadable: "fix its permissions"
            }
        }
    }

    /// The problem with the file or folder `info` describes; nil when it passes.
    package static func problem(_ info: stat, path: String) -> Problem? {
        if info.st_uid != geteuid() && info.st_uid != 0 { return .foreignOwner(path: path, owner: UInt32(info.st_uid)) }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            return .writableByOthers(path: path, mode: UInt32(info.st_mode & 0o7777))
        }
        return nil
    }

    /// What is at `path`, not following a link: nil when nothing is there; a link, another kind
    /// than `kind` (`S_IFREG`, `S_IFDIR`) or a failure of the rule is thrown.
    package static func check(_ path: String, kind: mode_t) throws(Problem) -> stat? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw .unreadable(path: path, detail: String(cString: strerror(errno)))
        }
        let found = info.st_mode & S_IFMT
        if found == S_IFLNK { throw .symbolicLink(path: path) }
        if found != kind { throw .wrongKind(path: path, expected: kind == S_IFDIR ? "a folder" : "a regular file") }
        if let problem = problem(info, path: path) { throw problem }
        return info
    }

    /// The effective user's name, for a `chown` the user can paste; the id when it has none.
    package static var userName: String {
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return String(geteuid())
    }
}
