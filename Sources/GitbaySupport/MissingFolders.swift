#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creating the folders missing from a path, each 0700, and only inside a folder of the
/// effective user's. Run as root with another user's `HOME` (`sudo -E`), folders made there
/// would be root's, in that user's home, where they break the user's own tools.
package enum MissingFolders {
    /// Why the folders were not created; nothing was.
    package enum Failure: Error, Sendable, Equatable {
        /// The nearest folder above `folder` that is there belongs to another user.
        case foreignAncestor(folder: String, ancestor: String, owner: UInt32)
        /// The file system refused (`detail` says why).
        case cannotCreate(folder: String, detail: String)
    }

    /// Creates `path` and every missing folder above it with mode 0700, whatever the umask;
    /// folders that are there are left as they are. The nearest folder that is there must be
    /// the effective user's, or root's with the sticky bit (`/tmp`), where anyone may make a
    /// folder and no one else can take it away.
    package static func create(_ path: String) throws(Failure) {
        var missing: [String] = []
        var current = path
        var info = stat()
        while stat(current, &info) != 0 {
            guard errno == ENOENT, current != "/", current != "." else {
                throw .cannotCreate(folder: current, detail: String(cString: strerror(errno)))
            }
            missing.append(current)
            current = parent(of: current)
        }
        guard !missing.isEmpty else { return }
        let ownedHere = info.st_uid == geteuid() || (info.st_uid == 0 && info.st_mode & S_ISVTX != 0)
        guard ownedHere else { throw .foreignAncestor(folder: path, ancestor: current, owner: UInt32(info.st_uid)) }
        for folder in missing.reversed() {
            if mkdir(folder, 0o700) == 0 {
                guard chmod(folder, 0o700) == 0 else { throw .cannotCreate(folder: folder, detail: String(cString: strerror(errno))) }
            } else if errno != EEXIST {
                throw .cannotCreate(folder: folder, detail: "could not create the folder: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The folder holding `path`: "." for a bare name, "/" for a name at the root.
    package static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }
}
