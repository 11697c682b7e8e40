import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real `sshd` on 127.0.0.1 before one fake gitbay server, as gitbay's own SSH access is:
/// `ssh -F <config> git@127.0.0.1 -- <argv…>` runs the command as the gitbay user of the key,
/// prints what the server prints (the envelope with `--json`) and exits with its exit code;
/// a key the server does not know makes ssh fail with 255.
///
/// Everything lives in a temporary folder: a throwaway host key, one client key per gitbay
/// user, an `authorized_keys` whose forced command (`gitbay-fake-server ssh-command`) forwards
/// `$SSH_ORIGINAL_COMMAND` to the fake's `POST /_fake/ssh` as that user, and one ssh client
/// configuration per key (`configFile(for:)`, for `-F`) that trusts only the host key. The
/// Unix account `git` that sshd logs in is written in a private passwd file read through
/// nss_wrapper (Debian's libnss-wrapper), so nothing of the machine's accounts changes; where
/// nss_wrapper is missing, sshd logs in the account running the tests instead
/// (`loginUser`). As root, sshd needs its privilege separation folder `/run/sshd`, which is
/// created if missing.
///
/// sshd runs until `stop()` or until this process goes away (its standard input, a pipe we
/// hold, reaches its end).
package final class SSHFront: Sendable {
    package struct StartFailed: Error, CustomStringConvertible {
        package let description: String
    }

    /// The port sshd listens on, on 127.0.0.1.
    package let port: UInt16
    /// The Unix account ssh logs in as: `git`, as on a gitbay server, where nss_wrapper is
    /// installed; else the account running the tests.
    package let loginUser: String
    /// The ssh client, found on the machine.
    package let sshPath: String
    /// A client configuration whose key the server refuses.
    package let strangerConfigFile: String
    private let folder: TemporaryDirectory
    private let users: [String]
    private let child: SpawnedChild
    /// The write end of sshd's lifeline, nil once `stop()` closed it.
    private let lifeline: Mutex<Int32?>

    /// Nil when sshd, ssh and ssh-keygen are installed, else what is missing, for a test that
    /// needs the front to say why it is skipped (scripts/install-deps installs them all).
    package static var missingTools: String? {
        do {
            _ = try SSHTools.located()
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// `git@127.0.0.1` (or `loginUser@127.0.0.1`): the destination gitbay's CLI would use.
    package var destination: String { "\(loginUser)@127.0.0.1" }

    /// The ssh client configuration of `user`'s key (for `ssh -F`): port, key, host key.
    package func configFile(for user: String) -> String {
        precondition(users.contains(user), "the front has no key for \(user)")
        return folder.file("ssh_config_\(user)")
    }

    /// `ssh -F <config>` for `user`'s key, as argv.
    package func sshCommand(for user: String) -> [String] {
        [sshPath, "-F", configFile(for: user)]
    }

    /// The same as one command line, each word in single quotes, for `$GITBAY_SYNC_SSH`.
    package func commandLine(for user: String) -> String {
        sshCommand(for: user).map { "'" + $0.replacing("'", with: #"'\''"#) + "'" }.joined(separator: " ")
    }

    /// Starts sshd before the fake gitbay server listening on 127.0.0.1:`fakePort`, with one
    /// key for each of `users` (names of letters, digits, `.`, `_`, `-`), on a thread of its
    /// own (it waits on ssh-keygen and on sshd).
    package static func start(fakePort: UInt16, users: [String] = ["alice"]) async throws -> SSHFront {
        try await Blocking.run { try SSHFront(fakePort: fakePort, users: users) }
    }

    /// `start(fakePort:users:)` on the calling thread, which it blocks.
    package init(fakePort: UInt16, users: [String] = ["alice"]) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        precondition(!users.isEmpty && users.allSatisfy { !$0.isEmpty && $0.allSatisfy(allowed.contains) })
        let tools = try SSHTools.located()
        let folder = try TemporaryDirectory()
        self.folder = folder
        self.users = users
        sshPath = tools.ssh
        let setup = try SSHFrontFiles(folder: folder, tools: tools, users: users, fakePort: fakePort)
        loginUser = setup.loginUser
        strangerConfigFile = setup.strangerConfig
        var lastFailure = ""
        for _ in 0..<3 {
            let port = try Self.freePort()
            try setup.writeConfigurations(port: port)
            let (started, lifelineEnd) = try Self.startServer(tools: tools, setup: setup)
            if let failure = Self.waitUntilListening(port: port, log: setup.serverLog, child: started) {
                lastFailure = failure
                close(lifelineEnd)
                started.stop()
                continue
            }
            self.port = port
            child = started
            lifeline = Mutex(lifelineEnd)
            return
        }
        throw StartFailed(description: "sshd did not start (run scripts/install-deps: it needs openssh-server): \(lastFailure)")
    }

    deinit {
        stop()
    }

    /// Ends sshd: its lifeline closes and the wrapper stops it; the wrapper is reaped on a
    /// thread of its own (killed if it has not ended within five seconds).
    package func stop() {
        guard
            let end = lifeline.withLock({ end in
                defer { end = nil }
                return end
            })
        else { return }
        close(end)
        Self.reap(child)
    }

    /// Waits for `child` on a new thread, five seconds at most, then kills it if need be.
    static func reap(_ child: SpawnedChild) {
        Thread {
            let deadline = ContinuousClock.now + .seconds(5)
            var status: Int32 = 0
            while waitpid(child.pid, &status, WNOHANG) == 0 {
                guard ContinuousClock.now < deadline else { return child.stop() }
                usleep(10_000)
            }
        }.start()
    }

    /// Runs `ssh -F <config> <destination> -- <words>` to its end (killed after `timeout`),
    /// `stdin` (or nothing) on its standard input, on a thread of its own.
    package func run(
        _ words: [String], config: String, destination: String? = nil, stdin: String? = nil, timeout: Duration = .seconds(90)
    ) async throws -> (code: Int32?, out: String, err: String) {
        try await Blocking.run { [self] in try runBlocking(words, config: config, destination: destination, stdin: stdin, timeout: timeout) }
    }

    private func runBlocking(
        _ words: [String], config: String, destination: String?, stdin: String?, timeout: Duration
    ) throws -> (code: Int32?, out: String, err: String) {
        let scratch = try TemporaryDirectory()
        let out = scratch.file("out"), err = scratch.file("err")
        let environment = ["PATH": "/usr/bin:/bin", "HOME": folder.file("home"), "LANG": "C.UTF-8"]
        let started = try ChildProcess.start(
            sshPath, ["-F", config, destination ?? self.destination, "--"] + words, environment: environment, stdin: stdin,
            outPath: out, errPath: err)
        let ending = started.wait(deadline: timeout, memoryCap: 1 << 30)
        let text = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
        return (ending.code, text(out), text(err))
    }

    /// A port on 127.0.0.1 nothing listens on now (sshd binds it right after).
    private static func freePort() throws -> UInt16 {
        try ClosedPort().port
    }

    /// sshd under a small shell that stops it once its standard input (the lifeline) ends.
    private static func startServer(tools: SSHTools, setup: SSHFrontFiles) throws -> (SpawnedChild, Int32) {
        let input = try ChildPipe()
        let log = try ChildProcess.outputFile(setup.serverLog)
        defer { close(log) }
        let script = #""$@" </dev/null & pid=$!; cat >/dev/null; kill "$pid" 2>/dev/null; wait "$pid""#
        do {
            let started = try SpawnedChild.spawn(
                "/bin/sh", ["-c", script, "sh", tools.sshd, "-D", "-e", "-f", setup.serverConfig], environment: setup.serverEnvironment,
                descriptors: [0: input.readEnd, 1: log, 2: log])
            close(input.readEnd)
            return (started, input.writeEnd)
        } catch {
            input.closeBoth()
            throw error
        }
    }

    /// Nil once a TCP connection to `port` succeeds; else why not, after at most ten seconds.
    private static func waitUntilListening(port: UInt16, log: String, child: SpawnedChild) -> String? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if (try? RawHTTP(port: port, timeout: .seconds(1))) != nil { return nil }
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if said.contains("fatal") || said.contains("Cannot bind") || !child.isRunning { return said }
            usleep(20_000)
        }
        return "sshd did not listen on port \(port) within ten seconds: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")"
    }
}
