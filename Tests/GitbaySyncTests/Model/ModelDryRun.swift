import Foundation
import GitbayFake
import TestSupport

/// (10) A dry run writes nothing, to a server or to the database; and, in a schedule that no
/// crash, run beside a step or second machine has disturbed yet, it plans exactly the device
/// adds and removes of the run that follows it at once. Once disturbed, rows left unrecorded
/// or moved between accounts of one instance (the server keeps one row of a token) make the
/// run find writes its first lists did not show.
extension ModelWorld {
    /// The device writes `run --dry-run --json` plans at `instant`, as `deviceWrites()` spells them; nil when
    /// the dry run could not plan every account (exit 1), which the run then fails for too.
    func dryRunWrites(_ number: Int, at instant: Date) async throws -> [String]? {
        let files = [cli.databasePath, cli.databasePath + "-wal"]
        let before = files.map { FileManager.default.contents(atPath: $0) }
        servers.forEach { $0.resetRequests() }
        let result = await command(["run", "--dry-run", "--json"], at: instant)
        let writes = servers.flatMap { $0.requests().filter(\.isWrite) }
        guard writes.isEmpty else {
            throw ModelViolation(step: number, message: "a dry run wrote \(writes.map { "\($0.user ?? "?"): \($0.argv.joined(separator: " "))" })")
        }
        guard files.map({ FileManager.default.contents(atPath: $0) }) == before else {
            throw ModelViolation(step: number, message: "a dry run changed the state database")
        }
        guard result.code == 0, try await !twoNamesOfOneServer() else { return nil }
        let accounts = try result.json()["accounts"] as? [[String: Any]] ?? []
        return accounts.flatMap { account -> [String] in
            let user = (account["account"] as? String ?? "?").split(separator: "@").first.map(String.init) ?? "?"
            let actions = account["actions"] as? [[String: Any]] ?? []
            return actions.compactMap { action in
                switch action["action"] as? String {
                case "add": "\(user) add"
                case "remove": "\(user) remove \(action["device_id"] as? Int ?? -1)"
                default: nil
                }
            }
        }
    }

    /// Whether signed-in accounts are on two names of one server. There a run's add under one
    /// name can move a row of an account under the other (the server keeps one row of a token),
    /// which the run's next list sees and the dry run, which adds nothing, cannot: the run then
    /// adds again, or finds a planned removal done. `docs/reference.md` says so.
    private func twoNamesOfOneServer() async throws -> Bool {
        let instances = Set(try await cli.store().accounts().map(\.instance))
        return instances.contains { one in instances.contains { other in one != other && one.port == other.port } }
    }

    /// The device adds and removes the servers saw since their requests were last reset.
    func deviceWrites() -> [String] {
        servers.flatMap { $0.requests().filter(\.isWrite) }.compactMap { request in
            guard request.argv.starts(with: ["notifications", "device"]), request.argv.count > 2 else { return nil }
            let user = request.user ?? "?"
            return switch request.argv[2] {
            case "add": "\(user) add"
            case "remove": "\(user) remove \(request.argv.dropFirst(3).first { $0.allSatisfy(\.isNumber) } ?? "?")"
            default: nil
            }
        }
    }

    /// Checks that the run just made wrote what the dry run before it planned, on the
    /// instances that answer an add with the row's id. On one that does not (v1.32.0), the run
    /// lists again after its add and, when rows of this install's token and label are more
    /// than one (a row a crash left unrecorded, say), removes them all and adds once more.
    func checkPlanned(_ planned: [String], run writes: [String], _ number: Int) throws {
        let answering = Set(Self.users.filter { servers[$0.1].returnsDeviceID }.map(\.0))
        let (planned, writes) = (planned.filter(answering.contains(user:)), writes.filter(answering.contains(user:)))
        guard planned.sorted() == writes.sorted() else {
            throw ModelViolation(step: number, message: "a dry run planned \(planned.sorted()), the run after it wrote \(writes.sorted())")
        }
    }
}

extension Set<String> {
    /// Whether a write as `deviceWrites()` spells it is by one of these users.
    fileprivate func contains(user write: String) -> Bool {
        contains(String(write.prefix { $0 != " " }))
    }
}
