internal import CProcess

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How gitbay-sync starts another program (the pre-remove hook, ssh): `posix_spawn`, with
/// standard input from /dev/null, standard output and error to the descriptors given, and
/// nothing else of this process: no other descriptor (not the database, not a connection),
/// no blocked signal, and the default action for the signals this process turns off.
enum ChildSpawn {
    /// `posix_spawn` failed with this `errno`.
    struct Failure: Error, Equatable {
        let code: Int32
    }

    /// Starts `path` with `argv` and exactly `environment`; in a process group of its own when
    /// `ownGroup`. Returns its pid, or the `errno` of the failure.
    static func spawn(
        _ path: String, argv: [String], environment: [String: String], output: Int32, errors: Int32, ownGroup: Bool
    ) -> Result<pid_t, Failure> {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, errors, 2)
        let closeOthers = closingOthers(&actions)
        if ownGroup { posix_spawnattr_setpgroup(&attributes, 0) }
        // The child starts with no signal blocked and the default action for the signals this
        // process turns off: threads here block them (the dispatch sources read them), and both
        // the mask and ignored signals pass through exec, where they would make SIGTERM miss.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        let group = ownGroup ? Int32(POSIX_SPAWN_SETPGROUP) : 0
        posix_spawnattr_setflags(&attributes, Int16(group | Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | closeOthers))

        var arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        var pid: pid_t = 0
        var result = posix_spawn(&pid, path, &actions, &attributes, &arguments, &variables)
        // A program written a moment ago can still be open for writing in a child another thread
        // has just forked, until that child's own exec closes it: ETXTBSY, gone within milliseconds.
        for _ in 0..<20 where result == ETXTBSY {
            usleep(5_000)
            result = posix_spawn(&pid, path, &actions, &attributes, &arguments, &variables)
        }
        return result == 0 ? .success(pid) : .failure(Failure(code: result))
    }

    #if os(Linux)
    /// Starts `path` as `spawn` does, in a process group of its own, below a keeper: a forked
    /// process that is the child subreaper of everything `path` starts, so that a process that
    /// leaves the group, starts a session of its own and clears its environment is still below
    /// it; once `path` exits, the keeper kills what it left and ends as `path` did. Returns the
    /// keeper's pid (to reap) and the program's (its group's id).
    static func spawnKept(
        _ path: String, argv: [String], environment: [String: String], output: Int32, errors: Int32
    ) -> Result<(waited: pid_t, leader: pid_t), Failure> {
        // Everything the forked keeper uses is made before the fork: it may not allocate.
        var arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        var hook: pid_t = -1
        var code: Int32 = 0
        let keeper = cprocess_spawn_kept(path, &arguments, &variables, output, errors, &hook, &code)
        return keeper > 0 ? .success((keeper, hook)) : .failure(Failure(code: code))
    }

    /// Closes every descriptor above stderr in the child (glibc 2.34 and later); no spawn flag.
    private static func closingOthers(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>) -> Int32 {
        if let closeFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(closeFrom, to: CloseFrom.self)(actions, 3)
        }
        return 0
    }
    #else
    /// The spawn flag that closes every descriptor not given to the child.
    private static func closingOthers(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t?>) -> Int32 {
        Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
    }
    #endif
}
