import Testing
@testable import GitbaySync

@Suite("Migrations")
struct MigrationTests {
    @Test("the embedded list is numbered in order from 1")
    func numbering() {
        #expect(Migration.all.map(\.version) == Array(1...Migration.all.count))
    }
}
