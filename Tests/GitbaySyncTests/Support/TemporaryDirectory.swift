import Foundation
@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

/// A private folder for one test, removed when the value is freed.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path + "/gitbay-sync-tests"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base + "/" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A database location inside the folder (in a `state` subfolder not yet created).
    var location: StateLocation { StateLocation(databasePath: path + "/state/state.db") }

    func file(_ name: String) -> String { path + "/" + name }
}

/// The bytes of a file, or nil when it does not exist.
func fileBytes(_ path: String) -> Data? {
    FileManager.default.contents(atPath: path)
}

/// A file's permission bits.
func fileMode(_ path: String) -> Int {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    return (attributes?[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// A file's mode bits with the setuid, setgid and sticky bits, read without following a
/// symbolic link; nil when nothing is there.
func modeBits(_ path: String) -> Int? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return Int(info.st_mode & 0o7777)
}

/// Every file and folder under `folder` with its mode bits and bytes, to show that nothing
/// was created, removed or changed.
func folderSnapshot(_ folder: String) -> [String: String] {
    var entries: [String: String] = [:]
    for name in (try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? [] {
        let path = folder + "/" + name
        let bytes = fileBytes(path)?.base64EncodedString() ?? "folder"
        entries[name] = "\(String(modeBits(path) ?? -1, radix: 8)) \(bytes)"
    }
    return entries
}
