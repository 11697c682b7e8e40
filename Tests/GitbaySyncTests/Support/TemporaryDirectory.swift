import Foundation
@testable import GitbaySync

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
