import Synchronization
import Testing

@testable import GitbaySupport

@Suite("Logger")
struct LoggerTests {
    /// The records a logger passed on.
    final class Records: Sendable {
        let all = Mutex<[Logger.Record]>([])
    }

    /// A logger at `level` and the records it passed on.
    static func recording(at level: Logger.Level) -> (Logger, Records) {
        let records = Records()
        let logger = Logger(minimumLevel: level) { record in records.all.withLock { $0.append(record) } }
        return (logger, records)
    }

    @Test("metadata added with `with` reaches every record; a later layer wins, and a record's own wins over all")
    func layers() {
        let (logger, records) = Self.recording(at: .info)
        let account = logger.with(["account.name": "alice@one", "run": "1"]).with(["account.name": "bob@two"])
        account.info("account.started", ["step": "list"])
        account.warning("account.failed", ["run": "2"])
        logger.info("run.started")
        let logged = records.all.withLock { $0 }
        #expect(
            logged.map(\.metadata) == [
                ["account.name": "bob@two", "run": "1", "step": "list"],
                ["account.name": "bob@two", "run": "2"],
                [:],
            ])
        #expect(logged.map(\.message) == ["account.started", "account.failed", "run.started"])
    }

    @Test("a record below the level is dropped, its metadata never built")
    func belowTheLevel() {
        let (logger, records) = Self.recording(at: .warning)
        var built = false
        func metadata() -> [String: String] {
            built = true
            return [:]
        }
        logger.with(["account.name": "alice@one"]).info("account.started", metadata())
        #expect(records.all.withLock { $0.isEmpty })
        #expect(!built)
    }
}
