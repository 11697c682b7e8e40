import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real Secret Service for one test: a private D-Bus session bus (`dbus-run-session`) with
/// gnome-keyring's daemon on it (`gnome-keyring-daemon --unlock --components=secrets`, its
/// login keyring made and unlocked with a throwaway password), in a temporary HOME and
/// XDG_RUNTIME_DIR. Nothing of this process's environment changes: a test hands `environment`
/// to the code under test, so tests running at once each reach their own keyring.
///
/// It runs until `stop()`, or until this process goes away (the shell under
/// dbus-run-session waits on a pipe we hold and stops the daemon once it ends; the bus ends
/// with it).
package final class SecretServiceSession: Sendable {
    package struct StartFailed: Error, CustomStringConvertible {
        package let description: String
    }

    /// The bus's address, for `DBUS_SESSION_BUS_ADDRESS`.
    package let busAddress: String
    private let folder: TemporaryDirectory
    private let child: SpawnedChild
    private let lifeline: Mutex<Int32?>

    /// What the code under test sees: this bus, and the temporary HOME and runtime folder.
    package var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": busAddress, "HOME": folder.file("home"), "XDG_RUNTIME_DIR": folder.file("run"), "PATH": "/usr/bin:/bin"]
    }

    /// Starts the bus and the daemon on a thread of its own (it waits for them).
    package static func start() async throws -> SecretServiceSession {
        try await Blocking.run { try SecretServiceSession() }
    }

    /// `start()` on the calling thread, which it blocks.
    package init() throws {
        let folder = try TemporaryDirectory()
        self.folder = folder
        for name in ["home", "run"] {
            try FileManager.default.createDirectory(
                atPath: folder.file(name), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try "gitbay-test-keyring".write(toFile: folder.file("password"), atomically: true, encoding: .utf8)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/gnome-keyring-daemon")
        else {
            throw StartFailed(description: "the keyring tests need dbus-run-session and gnome-keyring-daemon: run scripts/install-deps")
        }
        let (started, lifelineEnd, address) = try Self.start(in: folder)
        child = started
        lifeline = Mutex(lifelineEnd)
        busAddress = address
        do {
            try Self.waitUntilUnlocked(address: address, folder: folder)
        } catch {
            stop()
            throw error
        }
    }

    deinit {
        stop()
    }

    /// Ends the daemon and the bus; they are reaped on a thread of their own.
    package func stop() {
        guard
            let end = lifeline.withLock({ end in
                defer { end = nil }
                return end
            })
        else { return }
        close(end)
        SSHFront.reap(child)
    }

    /// Locks the login keyring over D-Bus (`Service.Lock`, which asks nobody).
    package func lock() async throws {
        let (address, folder) = (busAddress, self.folder)
        _ = try await Blocking.run {
            try Self.call(
                address: address, folder: folder, "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock",
                ["array:objpath:/org/freedesktop/secrets/collection/login"])
        }
    }

    /// Whether the login keyring is locked now.
    package func isLocked() async throws -> Bool {
        let (address, folder) = (busAddress, self.folder)
        return try await Blocking.run { try Self.loginLocked(address: address, folder: folder) == true }
    }

    /// How many items any client finds with exactly these attributes (`Service.SearchItems`,
    /// as secret-tool or Seahorse search), locked or not. Keys and values must hold no comma.
    package func itemCount(matching attributes: [String: String]) async throws -> Int {
        precondition(attributes.allSatisfy { !$0.key.contains(",") && !$0.value.contains(",") })
        let pairs = attributes.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }.joined(separator: ",")
        let (address, folder) = (busAddress, self.folder)
        let reply = try await Blocking.run {
            try Self.call(
                address: address, folder: folder, "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.SearchItems",
                ["dict:string:string:\(pairs)"])
        }
        guard reply.hasPrefix("method return") else { throw StartFailed(description: "SearchItems failed: \(reply)") }
        return reply.components(separatedBy: "object path \"/org/freedesktop/secrets/collection/").count - 1
    }

    /// Starts recording the method calls made on the bus (`dbus-monitor`).
    package func monitor() async throws -> BusMonitor {
        let (address, output) = (busAddress, folder.file("monitor-\(UUID().uuidString)"))
        return try await Blocking.run { try BusMonitor(address: address, output: output) }
    }

    /// dbus-run-session with the shell that starts the daemon and prints the bus's address.
    private static func start(in folder: TemporaryDirectory) throws -> (SpawnedChild, Int32, String) {
        let script = #"""
            printf '%s\n' "$DBUS_SESSION_BUS_ADDRESS"
            gnome-keyring-daemon --foreground --unlock --components=secrets <"$1" >"$2" 2>&1 &
            pid=$!
            cat >/dev/null
            kill "$pid" 2>/dev/null
            wait "$pid"
            """#
        let environment = [
            "HOME": folder.file("home"), "XDG_RUNTIME_DIR": folder.file("run"), "XDG_DATA_HOME": folder.file("home/.local/share"),
            "XDG_CONFIG_HOME": folder.file("home/.config"), "XDG_CACHE_HOME": folder.file("home/.cache"), "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
        ]
        let input = try ChildPipe()
        let output = try ChildPipe()
        let errors = try ChildProcess.outputFile(folder.file("dbus-run-session.err"))
        defer { close(errors) }
        let started: SpawnedChild
        do {
            started = try SpawnedChild.spawn(
                "/usr/bin/dbus-run-session", ["--", "/bin/sh", "-c", script, "sh", folder.file("password"), folder.file("keyring.log")],
                environment: environment, descriptors: [0: input.readEnd, 1: output.writeEnd, 2: errors])
        } catch {
            input.closeBoth()
            output.closeBoth()
            throw error
        }
        close(input.readEnd)
        close(output.writeEnd)
        let line = firstLine(output.readEnd)
        close(output.readEnd)
        guard line.hasPrefix("unix:") else {
            close(input.writeEnd)
            started.stop()
            let said = (try? String(contentsOfFile: folder.file("dbus-run-session.err"), encoding: .utf8)) ?? ""
            throw StartFailed(description: "dbus-run-session did not start a bus: \(said.isEmpty ? line : said)")
        }
        return (started, input.writeEnd, line)
    }

    /// Waits (ten seconds at most) for the daemon to own the Secret Service's name and for
    /// its login keyring to be there, unlocked. The name is checked first: a call to it before
    /// the daemon owns it would have the bus start another daemon.
    private static func waitUntilUnlocked(address: String, folder: TemporaryDirectory) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let owned = try call(
                address: address, folder: folder, "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
                ["string:org.freedesktop.secrets"], destination: "org.freedesktop.DBus")
            if owned.contains("boolean true"), try loginLocked(address: address, folder: folder) == false { return }
            usleep(20_000)
        }
        let said = (try? String(contentsOfFile: folder.file("keyring.log"), encoding: .utf8)) ?? ""
        throw StartFailed(description: "gnome-keyring-daemon did not unlock a login keyring within ten seconds: \(said)")
    }

    /// The login keyring's `Locked` property; nil when it does not exist (yet).
    private static func loginLocked(address: String, folder: TemporaryDirectory) throws -> Bool? {
        let reply = try call(
            address: address, folder: folder, "/org/freedesktop/secrets/collection/login", "org.freedesktop.DBus.Properties.Get",
            ["string:org.freedesktop.Secret.Collection", "string:Locked"])
        if reply.contains("boolean true") { return true }
        if reply.contains("boolean false") { return false }
        return nil
    }

    /// `dbus-send --print-reply` of `method` on `path`; what it printed, errors included.
    @discardableResult
    private static func call(
        address: String, folder: TemporaryDirectory, _ path: String, _ method: String, _ arguments: [String],
        destination: String = "org.freedesktop.secrets"
    ) throws -> String {
        let (_, output) = try ChildProcess.run(
            "/usr/bin/dbus-send", ["--bus=\(address)", "--print-reply", "--reply-timeout=5000", "--dest=\(destination)", path, method] + arguments,
            environment: ["PATH": "/usr/bin:/bin"], output: folder.file("dbus-send-\(UUID().uuidString)"))
        return output
    }

    /// The first line `descriptor` gives, without its newline (all of it if it has none).
    private static func firstLine(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// `dbus-monitor` on one bus, recording every method call until `stop()`.
package final class BusMonitor: Sendable {
    private let child: SpawnedChild
    private let output: String

    init(address: String, output: String) throws {
        self.output = output
        let file = try ChildProcess.outputFile(output)
        defer { close(file) }
        let null = try ChildProcess.nullDevice()
        defer { close(null) }
        child = try SpawnedChild.spawn(
            "/usr/bin/dbus-monitor", ["--address", address, "type='method_call'"], environment: ["PATH": "/usr/bin:/bin"],
            descriptors: [0: null, 1: file, 2: file])
        // It prints the bus's NameLost signal once it has become a monitor.
        let deadline = ContinuousClock.now + .seconds(10)
        while !((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("member=NameLost") {
            guard ContinuousClock.now < deadline else {
                child.stop()
                throw SecretServiceSession.StartFailed(description: "dbus-monitor did not start within ten seconds")
            }
            usleep(10_000)
        }
    }

    /// Stops recording; every method call seen, as `interface.member`, in order.
    package func stop() -> [String] {
        child.stop()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.hasPrefix("method call ") }.compactMap { line in
            let fields = line.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let interface = fields.first(where: { $0.hasPrefix("interface=") })?.dropFirst("interface=".count),
                let member = fields.first(where: { $0.hasPrefix("member=") })?.dropFirst("member=".count)
            else { return nil }
            return "\(interface).\(member)"
        }
    }
}
