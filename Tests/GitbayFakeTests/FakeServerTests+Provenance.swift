import Foundation
import GitbayFake
import TestSupport
import Testing

/// Who inserted, moved and deleted each device row, for model-based tests.
extension FakeServerTests {
    @Test("a row remembers the API token that inserted it; a move keeps it and is logged")
    func insertedWithAndMoves() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let alice = server.mintToken(for: "alice")
        let aliceAgain = server.mintToken(for: "alice")
        let bob = server.mintToken(for: "bob")

        _ = try RawHTTP.command(server.port, token: alice, Self.addArgv(label: "phone"), stdin: "3f2a9c01aabbccdd")
        _ = try RawHTTP.command(server.port, token: aliceAgain, Self.addArgv(label: "phone"), stdin: "3f2a9c01aabbccdd")
        #expect(server.moves().isEmpty, "a re-add by the owner is not a move")
        let moved = try RawHTTP.command(server.port, token: bob, Self.addArgv(label: "bob's"), stdin: "3f2a9c01aabbccdd")
        _ = try RawHTTP.command(server.port, token: aliceAgain, Self.addArgv(label: "back"), stdin: "3f2a9c01aabbccdd")

        #expect(moved.dataObject?["id"] as? Int == 1)
        let row = try #require(server.devices().first)
        #expect(server.devices().count == 1)
        #expect(row.owner == "alice")
        #expect(row.insertedWith == alice)
        #expect(
            server.moves() == [
                FakeMove(id: 1, from: "alice", to: "bob", byAPIToken: bob),
                FakeMove(id: 1, from: "bob", to: "alice", byAPIToken: aliceAgain),
            ])
    }

    @Test("insertDevice upserts like device add: it moves an existing row and logs the move without a token")
    func insertDeviceMoves() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let alice = server.mintToken(for: "alice")
        _ = try RawHTTP.command(server.port, token: alice, Self.addArgv(label: "phone"), stdin: "3f2a9c01aabbccdd")
        let before = try #require(server.devices().first)

        let moved = server.insertDevice(owner: "bob", token: "3f2a9c01aabbccdd", label: "bob's")
        let fresh = server.insertDevice(owner: "carol", token: "cccccccccccccccc", label: "carol's")

        #expect(moved == before.id)
        #expect(
            server.devices() == [
                FakeDevice(id: 1, owner: "bob", label: "bob's", token: "3f2a9c01aabbccdd", added: before.added, insertedWith: alice),
                FakeDevice(id: 2, owner: "carol", label: "carol's", token: "cccccccccccccccc", added: server.devices()[1].added),
            ])
        #expect(server.devices().map(\.insertedWith) == [alice, nil])
        #expect(fresh == 2)
        #expect(server.moves() == [FakeMove(id: 1, from: "alice", to: "bob", byAPIToken: nil)])
        let aliceList = try RawHTTP.read(server.port, token: alice, Self.list)
        #expect(aliceList.dataArray?.isEmpty == true)
    }

    @Test("deletions keep the row as it was and who deleted it; a refused remove deletes nothing")
    func deletions() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let alice = server.mintToken(for: "alice")
        let bob = server.mintToken(for: "bob")
        _ = try RawHTTP.command(server.port, token: alice, Self.addArgv(label: "mine"), stdin: "aaaaaaaaaaaaaaaa")
        let others = server.insertDevice(owner: "alice", token: "bbbbbbbbbbbbbbbb", label: "another client's")
        let removedRow = try #require(server.devices().first)

        let foreign = try RawHTTP.command(server.port, token: bob, Self.remove + ["1"])
        let removed = try RawHTTP.command(server.port, token: alice, Self.remove + ["1"])
        server.deleteDevice(id: others)
        server.deleteDevice(id: 99)

        #expect(foreign.status == 404)
        #expect(removed.status == 200)
        #expect(server.devices().isEmpty)
        let log = server.deletions()
        #expect(log.count == 2)
        #expect(log.first == FakeDeletion(device: removedRow, byAPIToken: alice))
        #expect(log.first?.device.insertedWith == alice)
        #expect(log.last?.device.id == others)
        #expect(log.last?.device.insertedWith == nil)
        #expect(log.last?.byAPIToken == nil)
    }

    @Test("a reused id names a new row: insertedWith tells them apart")
    func reusedIDs() throws {
        let server = try FakeGitbayServer()
        defer { server.stop() }
        let alice = server.mintToken(for: "alice")
        let top = server.insertDevice(owner: "alice", token: "aaaaaaaaaaaaaaaa", label: "another client's")
        server.deleteDevice(id: top)

        let added = try RawHTTP.command(server.port, token: alice, Self.addArgv(label: "mine"), stdin: "cccccccccccccccc")

        #expect(added.dataObject?["id"] as? Int == top)
        #expect(server.deletions().map(\.device.insertedWith) == [nil])
        #expect(server.devices().map(\.insertedWith) == [alice])
    }
}
