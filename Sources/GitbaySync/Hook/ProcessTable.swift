#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The processes running now, as Linux's /proc shows them: each one's parent, state and start
/// time. Read to find what a pre-remove hook started; on macOS there is no /proc, and the
/// table is empty.
struct ProcessTable {
    /// One process.
    struct Entry: Equatable {
        let pid: pid_t
        let parent: pid_t
        /// The state letter: `R`, `S`, `D`, `Z` (a zombie, waiting to be reaped), …
        let state: Character
        /// Clock ticks after boot: tells a process from a later one given the same pid.
        let start: UInt64

        var isZombie: Bool { state == "Z" || state == "X" }
    }

    let entries: [pid_t: Entry]

    /// The processes whose parent is `parent`.
    func children(of parent: pid_t) -> [Entry] {
        entries.values.filter { $0.parent == parent }
    }

    #if os(Linux)
    /// Reads /proc now. A process that ends while it is read is simply not in the table.
    static func current() -> ProcessTable {
        var entries: [pid_t: Entry] = [:]
        guard let folder = opendir("/proc") else { return ProcessTable(entries: [:]) }
        defer { closedir(folder) }
        while let item = readdir(folder) {
            let name = withUnsafePointer(to: item.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            guard let pid = pid_t(name), let entry = entry(pid) else { continue }
            entries[pid] = entry
        }
        return ProcessTable(entries: entries)
    }

    /// One process's entry from /proc/<pid>/stat; nil when it is gone.
    static func entry(_ pid: pid_t) -> Entry? {
        guard let bytes = contents("/proc/\(pid)/stat", limit: 4096) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        // The command name, in parentheses, may hold spaces and parentheses: the fields
        // start after the last ")".
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // state is field 3 of stat(5), ppid 4, starttime 22.
        guard fields.count > 19, let state = fields[0].first, let parent = pid_t(fields[1]), let start = UInt64(fields[19]) else {
            return nil
        }
        return Entry(pid: pid, parent: parent, state: state, start: start)
    }

    /// Whether the environment `pid` started with holds `variable` (`NAME=VALUE`); nil when it
    /// cannot be read (gone, or another user's).
    static func environment(of pid: pid_t, contains variable: String) -> Bool? {
        guard let bytes = contents("/proc/\(pid)/environ", limit: 1 << 20) else { return nil }
        let wanted = Array(variable.utf8)
        return bytes.split(separator: 0, omittingEmptySubsequences: true).contains { $0.elementsEqual(wanted) }
    }

    /// A file's first `limit` bytes; nil when it cannot be opened.
    private static func contents(_ path: String, limit: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer.prefix(count)
        }
        return bytes
    }
    #else
    /// No /proc: nothing is known beyond the hook's process group.
    static func current() -> ProcessTable { ProcessTable(entries: [:]) }

    static func entry(_ pid: pid_t) -> Entry? { nil }

    static func environment(of pid: pid_t, contains variable: String) -> Bool? { nil }
    #endif
}
