import GitbayReconcile
import GitbayState
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every account's state as the database holds it, read with no request: what a screen shows.
public struct GitbaySnapshot: Sendable, Equatable {
    /// The accounts, in sign-in order.
    public let accounts: [GitbayAccountStatus]
    /// True when a device token is set.
    public let deviceTokenSet: Bool
    /// This device's label on the servers.
    public let deviceLabel: String
}

/// One account's state as the last run left it.
public struct GitbayAccountStatus: Sendable, Equatable, Identifiable {
    public let account: GitbayAccount
    public let condition: GitbayCondition
    /// The server's row holding the current device token for the account, when one is recorded.
    public let deviceID: Int?
    /// What failed at the last attempt. The database keeps it as the engine worded it, so it
    /// is `.earlierRun(recorded:)`, as a skipped account's result's `failure` is; its
    /// `description` is the recorded text.
    public let lastFailure: GitbayFailure?
    /// When a failed account is tried again by a run that honours backoffs.
    public let nextAttemptAt: Date?
    public let retryReason: GitbayRetryReason?
    /// When a run last checked the account with its server, and when that last succeeded.
    public let checkedAt: Date?
    public let succeededAt: Date?
    /// Why the latest runs could not check it, and since when, while they could not.
    public let notChecked: GitbayNotCheckedReason?
    public let notCheckedSince: Date?

    public var id: Int64 { account.id }

    init(_ record: AccountRecord, _ status: AccountStatusRecord, registrations: [RegistrationRecord], generation: Int) {
        account = GitbayAccount(record)
        condition = GitbayCondition(status.condition)
        deviceID = registrations.first { $0.generation == generation }?.deviceID
        lastFailure = status.lastError.map { GitbayFailure.earlierRun(recorded: $0) }
        nextAttemptAt = status.nextRetryAt
        retryReason = status.nextRetryReason.map(GitbayRetryReason.init)
        checkedAt = status.lastAttemptAt
        succeededAt = status.lastSuccessAt
        notChecked = status.unchecked.map { GitbayNotCheckedReason($0.reason) }
        notCheckedSince = status.unchecked?.since
    }
}

extension GitbaySnapshot {
    /// What `store` holds now.
    static func read(_ store: StateStore) async throws -> GitbaySnapshot {
        let facts = try await store.runFacts()
        let accounts = facts.accounts.map { account in
            GitbayAccountStatus(
                account, facts.statuses[account.id] ?? AccountStatusRecord(), registrations: facts.registrations[account.id] ?? [],
                generation: facts.device.generation)
        }
        return GitbaySnapshot(accounts: accounts, deviceTokenSet: facts.device.token != nil, deviceLabel: facts.device.label)
    }
}

/// The change streams open on a registrar, each told every snapshot after a change.
final class SnapshotBroadcast: Sendable {
    private let streams = Mutex<(next: Int, open: [Int: AsyncStream<GitbaySnapshot>.Continuation])>((0, [:]))

    /// A new stream; it ends when its reader stops reading.
    func subscribe() -> (AsyncStream<GitbaySnapshot>, AsyncStream<GitbaySnapshot>.Continuation) {
        let (stream, continuation) = AsyncStream.makeStream(of: GitbaySnapshot.self, bufferingPolicy: .bufferingNewest(1))
        let id = streams.withLock { streams in
            defer { streams.next += 1 }
            streams.open[streams.next] = continuation
            return streams.next
        }
        continuation.onTermination = { [weak self] _ in _ = self?.streams.withLock { $0.open.removeValue(forKey: id) } }
        return (stream, continuation)
    }

    var isEmpty: Bool { streams.withLock { $0.open.isEmpty } }

    func send(_ snapshot: GitbaySnapshot) {
        for continuation in streams.withLock({ Array($0.open.values) }) { continuation.yield(snapshot) }
    }
}

extension GitbayPushSync {
    /// Every account's state, read from the database with no request.
    public func snapshot() async throws -> GitbaySnapshot {
        try await withEngine(changing: false) { engine in try await GitbaySnapshot.read(engine.store) }
    }

    /// The snapshot now, then again after every change this registrar makes (a sign-in, a
    /// sign-out...) and, during a run, as each account is done (the verdicts of accounts found
    /// in order are recorded together as the run ends): an `@Observable` model mirrors it
    /// with `for await`. Only the latest
    /// snapshot waits for a slow reader.
    public func changes() async throws -> AsyncStream<GitbaySnapshot> {
        let (stream, continuation) = broadcast.subscribe()
        do {
            continuation.yield(try await snapshot())
        } catch {
            continuation.finish()
            throw error
        }
        return stream
    }

    /// Tells the change streams what the database holds now; a failed read tells nothing.
    func publish(_ engine: SyncEngine) async {
        guard !broadcast.isEmpty, let snapshot = try? await GitbaySnapshot.read(engine.store) else { return }
        broadcast.send(snapshot)
    }
}
