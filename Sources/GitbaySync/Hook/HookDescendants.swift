#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one run of the pre-remove hook started, wherever it went: on Linux everything is below
/// the keeper the hook runs under (`ChildSpawn.spawnKept`), the child subreaper of the hook's
/// orphans, so a process that leaves the group (`setsid`), clears its environment or is
/// orphaned is found by descent. Should the keeper be gone, an orphan is reparented to this
/// process (the child subreaper while hooks run) and known by the marker variable every
/// process of the run inherits, unless it cleared it. Only these processes are
/// ever signalled or reaped: this process has other children (a test runner's servers and
/// binaries, another removal's hook) that are none of the hook's business.
///
/// On macOS there is no /proc to read: nothing is known beyond the process group.
struct HookDescendants {
    /// The variable that marks the run's processes.
    static let variable = "GITBAY_SYNC_HOOK_RUN"

    /// This run's value of `variable`.
    let value: String
    /// The processes found, by pid, with their start time: a pid whose start time changed is
    /// another process's now, and is left alone.
    private(set) var known: [pid_t: UInt64] = [:]
    /// Children of this process found not to be the run's, so that each environment is read
    /// once.
    private var strangers: [pid_t: UInt64] = [:]

    init() {
        value = "\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
    }

    /// `NAME=VALUE`, as /proc/<pid>/environ holds it.
    var marker: String { "\(Self.variable)=\(value)" }

    /// Looks again and acts on what it finds: adds every process below `leader` (the hook,
    /// while it is not reaped) or below one already known, and every child of this process
    /// that carries the marker; forgets what is gone; sends `signal` (if any) to each known
    /// process that still runs; reaps each known one that is a zombie child of this process.
    /// Returns true when none is left.
    mutating func sweep(leader: pid_t?, signal: Int32?) -> Bool {
        let table = ProcessTable.current()
        known = known.filter { table.entries[$0.key]?.start == $0.value }
        strangers = strangers.filter { table.entries[$0.key]?.start == $0.value }
        let me = getpid()
        for child in table.children(of: me) where child.pid != leader && known[child.pid] == nil && strangers[child.pid] == nil {
            if ProcessTable.environment(of: child.pid, contains: marker) == true {
                known[child.pid] = child.start
            } else {
                strangers[child.pid] = child.start
            }
        }
        // Everything below the hook or below a process of the run is the run's.
        var queue = Array(known.keys) + (leader.map { [$0] } ?? [])
        while let parent = queue.popLast() {
            for child in table.children(of: parent) where child.pid != leader && known[child.pid] == nil {
                known[child.pid] = child.start
                queue.append(child.pid)
            }
        }
        for (pid, _) in known {
            guard let entry = table.entries[pid] else { continue }
            if entry.isZombie {
                // Only a child of this process can be reaped here; a zombie of another parent
                // of the run is reparented here once that parent is gone.
                var status: Int32 = 0
                if entry.parent == me, waitpid(pid, &status, WNOHANG) == pid { known[pid] = nil }
            } else if let signal {
                kill(pid, signal)
            }
        }
        return known.isEmpty
    }

    /// Sends `signal` to each known process that is still the one found (same start time).
    func signal(_ signal: Int32) {
        for (pid, start) in known where ProcessTable.entry(pid)?.start == start {
            kill(pid, signal)
        }
    }
}
