import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real systemd user manager of one test's own. It runs as root inside a private mount
/// namespace (`unshare -m`) with a tmpfs over `/run/systemd` holding an empty `system/`
/// folder, which is how systemd's tools tell a system booted with systemd; nothing of that
/// reaches the rest of the machine. The test runs its commands inside that namespace with
/// `launcher` (nsenter), where `systemctl --user` finds the manager by `XDG_RUNTIME_DIR`.
///
/// The manager's session bus socket is masked before it starts, so no D-Bus service (a
/// keyring among them) is activated behind a test's back; systemctl talks to the manager over
/// its private socket. The shell that holds the namespace stops the manager when the test
/// process is gone or its lifetime is up, so a crashed test leaves nothing running for long.
package final class SystemdUserManager: Sendable {
    package struct StartFailed: Error, CustomStringConvertible {
        package let description: String
    }

    /// Why no manager can be started here; nil when one can.
    package static let unavailableReason: String? = {
        #if os(Linux)
        guard geteuid() == 0 else { return "a user manager in a private mount namespace needs root (unshare -m)" }
        for program in [manager, "/usr/bin/unshare", "/usr/bin/nsenter"] where !FileManager.default.isExecutableFile(atPath: program) {
            return "\(program) is not installed (scripts/install-deps installs systemd and util-linux)"
        }
        let scratch = FileManager.default.temporaryDirectory.path + "/unshare-probe-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        guard let (ending, output) = try? ChildProcess.run("/usr/bin/unshare", ["-m", "/bin/true"], environment: [:], output: scratch) else {
            return "unshare could not be started"
        }
        return ending.code == 0 ? nil : "unshare -m is refused here: \(output.trimmingCharacters(in: .whitespacesAndNewlines))"
        #else
        return "a systemd user manager runs only on Linux"
        #endif
    }()

    /// Whether a test that needs a manager runs: where one can start, and always under CI,
    /// where a manager that cannot start fails the test instead of skipping it.
    package static var runs: Bool {
        unavailableReason == nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    static let manager = "/lib/systemd/systemd"

    /// The shell holding the namespace: it mounts, starts the manager, and waits.
    private static let script = #"""
        mount -t tmpfs -o mode=0755 tmpfs /run/systemd && mkdir /run/systemd/system || exit 90
        /lib/systemd/systemd --user </dev/null >"$3" 2>&1 &
        manager=$!
        echo "$manager" > "$XDG_RUNTIME_DIR/manager.pid"
        stop() { kill -TERM "$manager" 2>/dev/null; wait "$manager"; exit 0; }
        trap stop TERM INT HUP
        left=$1
        while [ "$left" -gt 0 ] && kill -0 "$2" 2>/dev/null && kill -0 "$manager" 2>/dev/null; do
            sleep 1 & wait $!
            left=$((left - 1))
        done
        stop
        """#

    /// The environment the manager runs with, and every command run inside it should have.
    package let environment: [String: String]
    /// `XDG_RUNTIME_DIR`: the manager's sockets.
    package let runtimeFolder: String
    /// Where the manager writes what it says.
    package let logPath: String
    /// The shell holding the namespace.
    let holder: pid_t
    private let ended: AsyncStream<ChildProcess.Ending>

    /// Words that run a program (given after them) inside the manager's namespace.
    package var launcher: [String] { ["/usr/bin/nsenter", "--mount=/proc/\(holder)/ns/mnt", "--"] }

    /// Starts a manager whose units are under `configHome` (`XDG_CONFIG_HOME`) with `home` as
    /// its home, its runtime folder in `folder`, and waits until it answers; it is stopped
    /// after `lifetime` at the latest.
    package init(home: String, configHome: String, folder: TemporaryDirectory, lifetime: Duration = .seconds(240)) async throws {
        if let reason = Self.unavailableReason { throw StartFailed(description: reason) }
        runtimeFolder = folder.path + "/runtime"
        logPath = folder.path + "/manager.log"
        // The session bus masked for this runtime only: `systemctl --user mask --runtime` writes there too.
        let masks = runtimeFolder + "/systemd/user"
        try FileManager.default.createDirectory(atPath: masks, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(atPath: masks + "/dbus.socket", withDestinationPath: "/dev/null")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        environment = [
            "HOME": home, "XDG_CONFIG_HOME": configHome, "XDG_RUNTIME_DIR": runtimeFolder,
            "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
        ]
        let seconds = String(lifetime.components.seconds)
        let child = try ChildProcess.start(
            "/usr/bin/unshare", ["-m", "/bin/sh", "-c", Self.script, "sh", seconds, String(getpid()), logPath], environment: environment,
            stdin: nil, outPath: folder.path + "/holder.out", errPath: folder.path + "/holder.err")
        holder = child.pid
        let (stream, continuation) = AsyncStream<ChildProcess.Ending>.makeStream()
        ended = stream
        ChildProcess.onExit(child.pid) { ending in
            continuation.yield(ending)
            continuation.finish()
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        var state = ""
        while clock.now < deadline {
            if kill(holder, 0) != 0 { break }
            let answer = try? systemctl(["is-system-running"])
            state = answer?.output.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if state == "running" || state == "degraded" { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        let said = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        let holderSaid = (try? String(contentsOfFile: folder.path + "/holder.err", encoding: .utf8)) ?? ""
        await stop()
        throw StartFailed(description: "the user manager did not come up (state \(state.isEmpty ? "none" : state)): \(holderSaid) \(said)")
    }

    /// Runs `systemctl --user` with `arguments` inside the namespace; returns its exit status
    /// and what it wrote (both streams).
    package func systemctl(_ arguments: [String]) throws -> (code: Int32?, output: String) {
        let scratch = runtimeFolder + "/../systemctl-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let (ending, output) = try ChildProcess.run(
            launcher[0], Array(launcher.dropFirst()) + ["/usr/bin/systemctl", "--user", "--no-pager"] + arguments,
            environment: environment, output: scratch)
        return (ending.code, output)
    }

    /// Stops the manager (it stops its units first) and the shell holding the namespace,
    /// killing both if they have not ended within a few seconds.
    package func stop() async {
        kill(holder, SIGTERM)
        let watchdog = Task { [holder, runtimeFolder] in
            try await Task.sleep(for: .seconds(15))
            if let text = try? String(contentsOfFile: runtimeFolder + "/manager.pid", encoding: .utf8),
                let manager = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                kill(manager, SIGKILL)
            }
            kill(holder, SIGKILL)
        }
        for await _ in ended {}
        watchdog.cancel()
    }
}
