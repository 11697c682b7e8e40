import Testing

@testable import GitbayState

/// The store's failures are said in words that name no program, since an app embeds the same
/// store: whoever shows them names itself where the file's writer is meant.
@Suite("The store's failures in words")
struct StoreErrorTextTests {
    static let path = "/tmp/state.db"
    static let every: [StoreError] = [
        .notADatabase(path: path, detail: "file is not a database"), .newerSchema(path: path, unknownVersions: [99]),
        .changedMigration(path: path, version: 1, name: "initial"), .foreignOwner(path: path, owner: 1001),
        .writableByOthers(path: path, mode: 0o666), .symbolicLink(path: path),
        .foreignFolder(path: path, ancestor: "/home/other", owner: 1001), .noDatabase(path: path),
        .notWritable(path: path, detail: "read-only file system"), .busy(path: path),
        .sqlite(SQLiteError(code: 10, message: "disk I/O error"), path: path),
    ]

    @Test("each names the path and no program", arguments: every)
    func namesNoProgram(_ error: StoreError) {
        #expect(error.description.contains(Self.path))
        #expect(!error.description.contains("gitbay-sync"), "\(error.description)")
    }

    @Test("a caller names the program where the file's writer is meant")
    func callerNamesItself() {
        #expect(StoreError.newerSchema(path: Self.path, unknownVersions: [99]).description(program: "Gitbay.app").contains("a newer Gitbay.app"))
        #expect(
            StoreError.changedMigration(path: Self.path, version: 1, name: "initial").description(program: "Gitbay.app").contains(
                "the Gitbay.app that wrote it"))
        #expect(StoreError.busy(path: Self.path).description(program: "Gitbay.app").contains("another Gitbay.app"))
        #expect(StoreError.notADatabase(path: Self.path, detail: "x").description(program: "Gitbay.app").contains("not a Gitbay.app state database"))
    }
}
