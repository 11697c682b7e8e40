import GitbaySupport

/// The accounts of a run waiting to start, and how many are in flight. Every instance starts
/// at once: at most `perInstance(instance)` accounts of one instance (polite to its server)
/// and `overall` accounts in all (a bound on the process) are in flight together. Each
/// instance's accounts start in the order given; the instances take turns.
package struct RunQueue<Item> {
    package let overall: Int
    /// The bound of each instance given.
    private var bounds: [InstanceURL: Int] = [:]
    /// The instances in the order their first account was given.
    private var instances: [InstanceURL] = []
    private var waiting: [InstanceURL: [Item]] = [:]
    /// How many of each instance's waiting items have started: the next one's index.
    private var started: [InstanceURL: Int] = [:]
    private var inFlight: [InstanceURL: Int] = [:]
    private var total = 0
    /// Where the next search for an instance with room begins.
    private var turn = 0

    package init(_ items: [(InstanceURL, Item)], overall: Int, perInstance: (InstanceURL) -> Int) {
        self.overall = max(1, overall)
        for (instance, item) in items {
            if waiting[instance] == nil {
                instances.append(instance)
                bounds[instance] = max(1, perInstance(instance))
            }
            waiting[instance, default: []].append(item)
        }
    }

    /// How many accounts are in flight.
    package var running: Int { total }

    /// The items not started yet.
    package var remaining: [Item] { instances.flatMap { (waiting[$0] ?? []).dropFirst(started[$0, default: 0]) } }

    /// Starts the next account that fits the bounds, if any: its instance and item.
    package mutating func start() -> (InstanceURL, Item)? {
        guard total < overall, !instances.isEmpty else { return nil }
        for step in 0..<instances.count {
            let instance = instances[(turn + step) % instances.count]
            let next = started[instance, default: 0]
            guard inFlight[instance, default: 0] < bounds[instance, default: 1], let queue = waiting[instance], next < queue.count else {
                continue
            }
            started[instance] = next + 1
            let item = queue[next]
            inFlight[instance, default: 0] += 1
            total += 1
            turn = (turn + step + 1) % instances.count
            return (instance, item)
        }
        return nil
    }

    /// Records that an account of `instance` finished.
    package mutating func finished(_ instance: InstanceURL) {
        inFlight[instance, default: 1] -= 1
        total -= 1
    }
}
