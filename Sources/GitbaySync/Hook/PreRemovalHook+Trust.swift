import GitbaySupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PreRemovalHook {
    /// The hook was not run: it, the file a link there leads to, or a folder holding either
    /// fails `OwnershipRule`, so someone else could choose what it runs.
    package struct Refused: Error, Sendable, Equatable, CustomStringConvertible {
        package let path: String
        package let problem: OwnershipRule.Problem

        package var description: String {
            "the pre-remove hook \(path) was not run: \(problem), so someone else could choose what runs as you; \(problem.fix)"
        }
    }

    /// Why the installed hook may not run; nil when it may. The hook must be a regular file
    /// that is yours (or root's) and that neither group nor others can write, in a folder that
    /// passes the same rule. A link there is followed, as ssh follows its files' links, when
    /// you (or root) made it: dotfiles managers put hooks in place that way. The file it leads
    /// to and that file's folder must pass then too, since whoever can change them chooses what
    /// runs.
    package var trustProblem: OwnershipRule.Problem? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        if (info.st_mode & S_IFMT) == S_IFLNK, info.st_uid != geteuid(), info.st_uid != 0 {
            return .foreignOwner(path: path, owner: UInt32(info.st_uid))
        }
        if let problem = Self.folderProblem(MissingFolders.parent(of: path)) { return problem }
        guard let resolved = realpath(path, nil) else {
            return .unreadable(path: path, detail: String(cString: strerror(errno)))
        }
        let real = String(cString: resolved)
        free(resolved)
        if MissingFolders.parent(of: real) != MissingFolders.parent(of: path),
            let problem = Self.folderProblem(MissingFolders.parent(of: real))
        {
            return problem
        }
        guard stat(real, &info) == 0 else { return .unreadable(path: real, detail: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .wrongKind(path: real, expected: "a regular file") }
        return OwnershipRule.problem(info, path: real)
    }

    /// The rule for a folder holding the hook, as it is reached (through links in its path).
    private static func folderProblem(_ folder: String) -> OwnershipRule.Problem? {
        var info = stat()
        guard stat(folder, &info) == 0 else { return .unreadable(path: folder, detail: String(cString: strerror(errno))) }
        return OwnershipRule.problem(info, path: folder)
    }
}
