import GitbayAPI
import GitbayCurl
import ReconcileSupport
import Testing

@testable import GitbayReconcile
@testable import GitbaySupport

@Suite("Run queue")
struct RunQueueTests {
    static let one = try! InstanceURL(parsing: "https://one.example")
    static let two = try! InstanceURL(parsing: "https://two.example")

    @Test("every instance starts at once, at most perInstance accounts of one instance in flight")
    func perInstanceBound() {
        var queue = RunQueue((1...6).map { (Self.one, $0) } + (7...8).map { (Self.two, $0) }, overall: 64, perInstance: { _ in 2 })
        var started: [(InstanceURL, Int)] = []
        while let next = queue.start() { started.append(next) }
        #expect(started.map(\.1) == [1, 7, 2, 8])
        #expect(queue.running == 4)
        #expect(queue.remaining == [3, 4, 5, 6])

        queue.finished(Self.two)
        #expect(queue.start() == nil)
        queue.finished(Self.one)
        #expect(queue.start()?.1 == 3)
        #expect(queue.start() == nil)
    }

    @Test("the overall bound holds across instances, and instances take turns")
    func overallBound() {
        var queue = RunQueue((1...4).map { (Self.one, $0) } + (5...8).map { (Self.two, $0) }, overall: 3, perInstance: { _ in 4 })
        var started: [Int] = []
        while let next = queue.start() { started.append(next.1) }
        #expect(started == [1, 5, 2])
        queue.finished(Self.one)
        #expect(queue.start()?.1 == 6)
        #expect(queue.start() == nil)
        #expect(queue.remaining == [3, 4, 7, 8])
    }

    @Test("a bound below one is taken as one")
    func atLeastOne() {
        var queue = RunQueue([(Self.one, 1), (Self.one, 2)], overall: 0, perInstance: { _ in 0 })
        #expect(queue.start()?.1 == 1)
        #expect(queue.start() == nil)
    }

    @Test("each instance has its own bound")
    func boundPerInstance() {
        var queue = RunQueue((1...5).map { (Self.one, $0) } + (6...10).map { (Self.two, $0) }, overall: 64) { $0 == Self.one ? 3 : 1 }
        var started: [Int] = []
        while let next = queue.start() { started.append(next.1) }
        #expect(started == [1, 6, 2, 3])
        queue.finished(Self.two)
        #expect(queue.start()?.1 == 7)
        #expect(queue.start() == nil)
    }

    @Test("an https instance allows its streams at once, a plain http one one request per connection")
    func boundByScheme() throws {
        let options = Reconciler.Options(perInstance: 8, perTLSInstance: 64, client: ReconcileWorld.client)
        #expect(options.bound(for: Self.one) == 64)
        #expect(options.bound(for: try InstanceURL(parsing: "http://127.0.0.1:8080")) == 8)
        #expect(Reconciler.Options(client: ReconcileWorld.client).bound(for: Self.one) == Reconciler.Options.defaultPerTLSInstance)
        #expect(Reconciler.Options.defaultPerInstance == ConnectionPool.defaultConnectionsPerInstance)
    }
}
