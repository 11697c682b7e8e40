import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The user's pre-removal hook: `$XDG_CONFIG_HOME/gitbay-sync/hooks/pre-remove`, run after the
/// built-in deregistration with the account in its environment (never the token). A non-zero
/// exit stops the removal; a hook that runs past the timeout is killed and counts as failed.
public struct PreRemovalHook: Sendable {
    public let path: String
    public let timeout: Duration

    public init(path: String, timeout: Duration = .seconds(30)) {
        self.path = path
        self.timeout = timeout
    }

    /// The hook's place: `$XDG_CONFIG_HOME`, else `~/.config`.
    public static func path(environment: [String: String]) -> String {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? HomeFolder.path(environment: environment) + "/.config"
        return config + "/gitbay-sync/hooks/pre-remove"
    }

    /// Why the hook stopped the removal.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let path: String
        public let status: Int32?
        public let timedOut: Bool
        public let output: String

        public var description: String {
            let what = timedOut ? "was killed after its timeout" : "exited with status \(status ?? -1)"
            let said = output.isEmpty ? "" : ": \(output)"
            return "the pre-remove hook \(path) \(what)\(said); fix the hook, or remove the account with --force"
        }
    }

    /// True when there is an executable hook to run.
    public var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs the hook for `account`; returns normally when it succeeds or is not installed.
    ///
    /// The hook runs in a process group of its own, with its output going to a private temporary
    /// file, so that a timeout kills everything it started and nothing it left running can hold
    /// gitbay-sync up.
    public func run(for account: AccountRecord, baseEnvironment: [String: String]) async throws {
        guard isInstalled else { return }
        var environment = baseEnvironment.filter { !$0.key.hasPrefix("GITBAY_SYNC_") }
        environment["GITBAY_SYNC_ACCOUNT"] = account.name
        environment["GITBAY_SYNC_INSTANCE"] = account.instance.description
        environment["GITBAY_SYNC_USER"] = account.username

        let outputPath = FileManager.default.temporaryDirectory.path + "/gitbay-sync-hook-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let output = open(outputPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw Failure(path: path, status: nil, timedOut: false, output: "cannot create its output file") }
        unlink(outputPath)
        defer { close(output) }

        let pid = try spawn(environment: environment, output: output)
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        var exited = false
        while ContinuousClock.now < deadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                exited = true
                break
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        if !exited {
            kill(-pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        var bytes = [UInt8](repeating: 0, count: 2000)
        let count = pread(output, &bytes, bytes.count, 0)
        let said = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self).trimmingWhitespace()
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        if !exited || exitStatus != 0 {
            throw Failure(path: path, status: exited ? exitStatus : nil, timedOut: !exited, output: said)
        }
    }

    /// Starts the hook in its own process group, stdin from /dev/null, output to `output`.
    private func spawn(environment: [String: String], output: Int32) throws -> pid_t {
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
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))

        let variables = environment.map { "\($0.key)=\($0.value)" }
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
        var envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, &argv, &envp)
        guard result == 0 else {
            throw Failure(path: path, status: nil, timedOut: false, output: "could not start: \(String(cString: strerror(result)))")
        }
        return pid
    }
}
