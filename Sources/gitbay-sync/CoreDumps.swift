internal import CProcess

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the API tokens this process holds out of core files: no core file at all, and on
/// Linux the process is not dumpable, so neither a crash nor another process of the same
/// user (ptrace, `/proc/<pid>/mem`, a core from `gcore`) can read its memory.
enum CoreDumps {
    /// Forbids core files for the rest of the process's life (the hard limit too, so nothing it
    /// runs can raise it again) and, on Linux, clears the dumpable attribute. Returns what
    /// could not be done, with its errno, for a warning; empty when all was done.
    static func forbid() -> [String] {
        var failures: [String] = []
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        #if canImport(Glibc)
        let limited = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
        #elseif canImport(Darwin)
        let limited = setrlimit(RLIMIT_CORE, &none)
        #endif
        if limited != 0 { failures.append("setrlimit(RLIMIT_CORE, 0): \(String(cString: strerror(errno)))") }
        #if os(Linux)
        if cprocess_clear_dumpable() != 0 { failures.append("prctl(PR_SET_DUMPABLE, 0): \(String(cString: strerror(errno)))") }
        #endif
        return failures
    }
}
