import Foundation
import GitbayFake
import ReconcileSupport
import Synchronization
import Testing
import TransportSupport

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport

/// A sign-in while a run rotates the same account's token: the run's last step deletes the
/// keyring item of the token it replaced, the item named after the account, which is where a
/// sign-in writes its token. The sign-in changes the token under the account's lease, so it
/// waits for the run instead of writing the item the run is about to delete.
@Suite("A sign-in during a rotation")
struct KeyringSignInRaceTests {
    /// Holds every `token revoke` until `release()`, saying when the first one is held.
    final class RevocationPause: HTTPTransport {
        let inner: any HTTPTransport
        let held = Mutex<[CheckedContinuation<Void, Never>]>([])
        let released = Mutex(false)
        let (paused, pausedOnce) = AsyncStream<Void>.makeStream()

        init(_ inner: any HTTPTransport) { self.inner = inner }

        func send(_ request: HTTPRequest, limits: TransportConfiguration) async throws(TransportError) -> HTTPResponse {
            let body = String(decoding: request.body ?? [], as: UTF8.self)
            if body.contains("\"revoke\"") && !released.withLock({ $0 }) {
                await withCheckedContinuation { continuation in
                    held.withLock { $0.append(continuation) }
                    pausedOnce.yield()
                }
            }
            return try await inner.send(request, limits: limits)
        }

        func release() {
            released.withLock { $0 = true }
            held.withLock { waiting in
                waiting.forEach { $0.resume() }
                waiting.removeAll()
            }
        }
    }

    @Test("the sign-in's token stays in the account's keyring item, and the run's successor is revoked")
    func signInWaitsForTheRotation() async throws {
        let base = try await KeyringRotationTests()
        var client = ReconcileWorld.client
        let pause = RevocationPause(MemoryTransport([base.server]))
        client.http = pause
        let rotating = KeyringRotationTests.engine(base.world, base.server, base.keyring, client: client, now: KeyringRotationTests.later)
        let run = Task { try await rotating.run() }
        // The run has switched to its successor and holds the account's lease.
        for await _ in pause.paused { break }

        let again = base.server.mintToken(for: "alice", name: base.name + "-again", lifetime: KeyringRotationTests.lifetime)
        let signIn = Task {
            try await KeyringRotationTests.engine(base.world, base.server, base.keyring).signIn(
                instance: try InstanceURL(parsing: base.server.baseURL), username: "alice", apiToken: Secret(again),
                details: APITokenDetails(name: base.name + "-again"), choice: .keyring)
        }
        // Long enough for a sign-in that did not wait to be done.
        try await Task.sleep(for: .milliseconds(300))
        pause.release()
        _ = try await run.value
        _ = try await signIn.value

        #expect(base.items == [base.own: Secret(again)], "the sign-in's token is the one the keyring keeps")
        #expect(try await APITokens(store: base.world.store, keyring: base.keyring).token(of: base.alice) == Secret(again))
        let next = try #require(try await base.engine(now: KeyringRotationTests.later).run().first?.outcome)
        #expect(!next.isFailure && next.condition == .registered)
        #expect(base.validTokens == [again], "the old token and the run's successor are revoked")
    }

    @Test("a lease held by another process for all of the wait: the wait is told once with its pid, then busy, and nothing is stored")
    func leaseHeldThroughout() async throws {
        let base = try await KeyringRotationTests()
        let other = LeaseHolder(pid: getpid(), id: "another-run")
        #expect(try await base.world.store.takeLeases([base.alice.id], holder: other).taken == [base.alice.id])
        let before = base.items
        let again = base.server.mintToken(for: "alice", name: base.name + "-again", lifetime: KeyringRotationTests.lifetime)
        let told = Mutex<[Int32]>([])
        await #expect {
            try await base.engine().signIn(
                instance: try InstanceURL(parsing: base.server.baseURL), username: "alice", apiToken: Secret(again),
                details: APITokenDetails(name: base.name + "-again"), choice: .keyring, leaseWait: .milliseconds(250),
                waiting: { pid in told.withLock { $0.append(pid) } })
        } throws: { error in
            guard case .busy(let pid) = error as? SyncEngine.SignInFailure else { return false }
            return pid == getpid()
        }
        #expect(told.withLock { $0 } == [getpid()], "told once, however many times it looked")
        #expect(base.items == before)
        #expect(try await APITokens(store: base.world.store, keyring: base.keyring).token(of: base.alice) == Secret(base.first))
    }
}
