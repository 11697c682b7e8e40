import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process holds API tokens in memory, so it makes itself non-dumpable and allows no core
/// file. Seen from outside as the kernel shows it: the files in a non-dumpable process's
/// `/proc/<pid>` (`mem` among them) are owned by root, whoever runs it, and its core file size
/// limit is 0. The binary runs as an
/// unprivileged user (tests run as root, and a root process's `/proc/<pid>` is root's anyway).
@Suite("Core dumps", .enabled(if: Unprivileged.available))
struct CoreDumpTests {
    static let launcher = Unprivileged.launcher
    static let unprivileged = Unprivileged.user
    static let setpriv = Unprivileged.setpriv

    /// The owner of `/proc/<pid>/<file>`: the process's user, or root when it is not dumpable.
    static func procOwner(_ pid: pid_t, _ file: String) -> uid_t? {
        var info = stat()
        return stat("/proc/\(pid)/\(file)", &info) == 0 ? info.st_uid : nil
    }

    /// The soft and hard core file size limits from `/proc/<pid>/limits`, as written there.
    static func coreLimits(_ pid: pid_t) -> [String]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Max core file size") })
        else { return nil }
        return line.dropFirst("Max core file size".count).split(separator: " ").prefix(2).map(String.init)
    }

    /// Waits until `path` holds `text` (the process has started its work), or gives up.
    static func wait(for text: String, in path: String) async throws {
        for _ in 0..<400 where !BuiltBinary.text(path).contains(text) {
            try await Task.sleep(for: .milliseconds(25))
        }
    }

    @Test("a long-running gitbay-sync started by an unprivileged user is not dumpable and allows no core file")
    func notDumpable() async throws {
        let folder = try TemporaryDirectory()
        #expect(chown(folder.path, Self.unprivileged, gid_t(Self.unprivileged)) == 0)
        let binary = try BuiltBinary.located(in: folder)
        let setToken = try await binary.start(["device", "set-token"], stdin: "c0ffee00aaaabbbbccccdddd", launcher: Self.launcher).finish()
        #expect(setToken.code == 0, "\(setToken.err)")

        // The control: an ordinary process of the same user is dumpable, so the check can tell.
        let control = try ChildProcess.start(
            Self.setpriv, Array(Self.launcher.dropFirst()) + ["/bin/sleep", "30"], environment: ["PATH": "/usr/bin:/bin"], stdin: nil,
            outPath: folder.file("control.out"), errPath: folder.file("control.err"))
        defer {
            kill(control.pid, SIGKILL)
            _ = ChildProcess.waitForExit(control.pid)
        }
        try await Task.sleep(for: .milliseconds(200))
        for file in ["status", "mem", "environ"] {
            #expect(Self.procOwner(control.pid, file) == Self.unprivileged, "an ordinary process's /proc/<pid>/\(file) is its user's")
        }

        // With core files allowed, as a shell with `ulimit -c unlimited` allows them.
        let running = try binary.start(
            ["run", "--every", "1h"], launcher: ["/bin/sh", "-c", "ulimit -c unlimited; exec \"$@\"", "sh"] + Self.launcher)
        try await Self.wait(for: "reconciling every 1h", in: running.errPath)
        for file in ["status", "mem", "environ"] {
            #expect(Self.procOwner(running.pid, file) == 0, "/proc/\(running.pid)/\(file) belongs to root: the process is not dumpable")
        }
        #expect(Self.coreLimits(running.pid) == ["0", "0"], "no core file, and none can be allowed again")
        running.send(SIGTERM)
        let finished = await running.finish(timeout: .seconds(30))
        #expect(finished.code == 0, "\(finished.err)")
    }
}

/// How a test starts a process as an unprivileged user: `setpriv` from util-linux, as root.
enum Unprivileged {
    static let setpriv = "/usr/bin/setpriv"
    /// `nobody` on Debian.
    static let user: uid_t = 65534
    static let launcher = [setpriv, "--reuid=\(user)", "--regid=\(user)", "--clear-groups"]

    static var available: Bool {
        #if os(Linux)
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv)
        #else
        false
        #endif
    }
}
