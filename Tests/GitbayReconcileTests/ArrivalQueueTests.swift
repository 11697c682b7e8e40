import Testing

@testable import GitbayReconcile

@Suite("Arrival queue")
struct ArrivalQueueTests {
    /// The lane an arrival names, -1 for a stop.
    static func lane(_ arrival: PassPool.Arrival?) -> Int? {
        switch arrival {
        case .event(let index, _): return index
        case .stop: return -1
        case nil: return nil
        default:
            Issue.record("an arrival this test never sent")
            return -3
        }
    }

    @Test("arrivals are taken in the order they came, then nil once finished")
    func order() async {
        let queue = ArrivalQueue()
        for index in 0..<5 { queue.yield(.event(index, .notModified)) }
        queue.yield(.stop)
        #expect(Self.lane(await queue.next()) == 0)
        queue.yield(.event(5, .notModified))
        queue.finish()
        queue.yield(.event(6, .notModified))
        var taken: [Int] = []
        while let arrival = await queue.next() { taken.append(Self.lane(arrival) ?? -2) }
        #expect(taken == [1, 2, 3, 4, -1, 5])
        #expect(Self.lane(await queue.next()) == nil)
    }

    @Test("a queue that never empties, two in for every one out, keeps the order")
    func neverEmpty() async {
        let queue = ArrivalQueue()
        var sent = 0
        var taken: [Int] = []
        for _ in 0..<500 {
            for _ in 0..<2 {
                queue.yield(.event(sent, .notModified))
                sent += 1
            }
            taken.append(Self.lane(await queue.next()) ?? -2)
        }
        queue.finish()
        while let arrival = await queue.next() { taken.append(Self.lane(arrival) ?? -2) }
        #expect(taken == Array(0..<1000))
    }

    @Test("a taker waiting on an empty queue gets what another task sends, and nil at the finish")
    func waiting() async {
        let queue = ArrivalQueue()
        async let taken: [Int] = {
            var taken: [Int] = []
            while let arrival = await queue.next() { taken.append(Self.lane(arrival) ?? -2) }
            return taken
        }()
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<4 {
                group.addTask {
                    for index in 0..<250 { queue.yield(.event(sender * 1000 + index, .notModified)) }
                }
            }
        }
        queue.finish()
        let all = await taken
        #expect(all.count == 1000)
        // Each sender's arrivals keep their order.
        for sender in 0..<4 {
            #expect(all.filter { $0 / 1000 == sender } == (0..<250).map { sender * 1000 + $0 })
        }
    }
}
