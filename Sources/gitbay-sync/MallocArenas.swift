internal import CProcess

/// glibc's allocator gives every thread that allocates an arena of its own (up to eight per
/// core), and memory freed in one is never reused by another. This process has few threads
/// (libcurl's event loop, the concurrency pool's, the database's queue) and allocates little,
/// so one arena costs nothing measurable in contention and keeps about 1 MB less resident at
/// 512 accounts (see docs/evidence.md, "Memory"). Set first, before a thread allocates.
enum MallocArenas {
    static func limitToOne() {
        #if canImport(Glibc)
        // A refusal leaves glibc's default, which only costs memory.
        _ = cprocess_limit_malloc_arenas(1)
        #endif
    }
}
