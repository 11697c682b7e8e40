import Foundation

/// A private folder for one test, removed when the value is freed.
package final class TemporaryDirectory: Sendable {
    package let path: String

    package init() throws {
        let base = FileManager.default.temporaryDirectory.path + "/gitbay-sync-tests"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base + "/" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A database path inside the folder (in a `state` subfolder not yet created).
    package var databasePath: String { path + "/state/state.db" }

    package func file(_ name: String) -> String { path + "/" + name }
}

/// The bytes of a file, or nil when it does not exist.
package func fileBytes(_ path: String) -> Data? {
    FileManager.default.contents(atPath: path)
}

/// A file's permission bits.
package func fileMode(_ path: String) -> Int {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    return (attributes?[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// A file's mode bits with the setuid, setgid and sticky bits, read without following a
/// symbolic link; nil when nothing is there.
package func modeBits(_ path: String) -> Int? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return Int(info.st_mode & 0o7777)
}

/// Every file and folder under `folder` with its mode bits and bytes, to show that nothing
/// was created, removed or changed.
package func folderSnapshot(_ folder: String) -> [String: String] {
    var entries: [String: String] = [:]
    for name in (try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? [] {
        let path = folder + "/" + name
        let bytes = fileBytes(path)?.base64EncodedString() ?? "folder"
        entries[name] = "\(String(modeBits(path) ?? -1, radix: 8)) \(bytes)"
    }
    return entries
}
