import GitbaySupport

/// The accounts of a run waiting to start, and how many are in flight. Every instance starts
/// at once: at most `perInstance(instance)` accounts of one instance (polite to its server)
/// and `overall` accounts in all (a bound on the process) are in flight together. Each
/// instance's accounts start in the order given; the instances take turns.
package struct RunQueue<Item> {
    /// One instance's accounts: the next to start is `items[started]`.
    private struct Lane {
        let instance: InstanceURL
        let bound: Int
        var items: [Item] = []
        var started = 0
        var inFlight = 0

        var hasRoom: Bool { inFlight < bound && started < items.count }
    }

    package let overall: Int
    /// The instances in the order their first account was given.
    private var lanes: [Lane] = []
    /// Where each instance's lane is; looked up once per account given and finished.
    private var laneIndex: [InstanceURL: Int] = [:]
    private var total = 0
    /// The lane where the next search for room begins.
    private var turn = 0

    package init(_ items: [(InstanceURL, Item)], overall: Int, perInstance: (InstanceURL) -> Int) {
        self.overall = max(1, overall)
        for (instance, item) in items {
            if let index = laneIndex[instance] {
                lanes[index].items.append(item)
            } else {
                laneIndex[instance] = lanes.count
                lanes.append(Lane(instance: instance, bound: max(1, perInstance(instance)), items: [item]))
            }
        }
    }

    /// How many accounts are in flight.
    package var running: Int { total }

    /// The items not started yet.
    package var remaining: [Item] { lanes.flatMap { $0.items.dropFirst($0.started) } }

    /// Starts the next account that fits the bounds, if any: its instance and item.
    package mutating func start() -> (InstanceURL, Item)? {
        guard total < overall, !lanes.isEmpty else { return nil }
        for step in 0..<lanes.count {
            let index = (turn + step) % lanes.count
            guard lanes[index].hasRoom else { continue }
            let item = lanes[index].items[lanes[index].started]
            lanes[index].started += 1
            lanes[index].inFlight += 1
            total += 1
            turn = (index + 1) % lanes.count
            return (lanes[index].instance, item)
        }
        return nil
    }

    /// Records that an account of `instance` finished.
    package mutating func finished(_ instance: InstanceURL) {
        if let index = laneIndex[instance] { lanes[index].inFlight -= 1 }
        total -= 1
    }
}

extension RunQueue where Item: Sendable {
    /// Runs `work` on every item within the bounds: all that fit at once, then another as each
    /// ends, while `mayStartMore` allows. Returns the results in the order they ended.
    package static func perform<Result: Sendable>(
        _ items: [(InstanceURL, Item)], overall: Int, perInstance: (InstanceURL) -> Int,
        mayStartMore: () -> Bool = { true }, _ work: @escaping @Sendable (Item) async -> Result
    ) async -> [Result] {
        var queue = RunQueue(items, overall: overall, perInstance: perInstance)
        var results: [Result] = []
        await withTaskGroup(of: (InstanceURL, Result).self) { group in
            func startWhatFits() {
                while mayStartMore(), let (instance, item) = queue.start() {
                    group.addTask { (instance, await work(item)) }
                }
            }
            startWhatFits()
            for await (instance, result) in group {
                queue.finished(instance)
                results.append(result)
                startWhatFits()
            }
        }
        return results
    }
}
