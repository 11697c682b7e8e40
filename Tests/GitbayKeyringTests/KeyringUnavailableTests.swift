import Foundation
import GitbayKeyring
import GitbaySupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// When no Secret Service can answer: each call reports why, as a value, and returns within
/// its bound.
@Suite("Secret Service keyring unavailable", .timeLimit(.minutes(1)))
struct KeyringUnavailableTests {
    /// Runs all three calls and returns what each threw (nil where it did not).
    static func failures(of keyring: SecretServiceKeyring) async -> [KeyringUnavailable?] {
        var failures: [KeyringUnavailable?] = []
        do throws(KeyringUnavailable) {
            try await keyring.store(Secret("gb_secret_value"), for: "alice@gitbay.org")
            failures.append(nil)
        } catch { failures.append(error) }
        do throws(KeyringUnavailable) {
            _ = try await keyring.readAll()
            failures.append(nil)
        } catch { failures.append(error) }
        do throws(KeyringUnavailable) {
            try await keyring.delete(account: "alice@gitbay.org")
            failures.append(nil)
        } catch { failures.append(error) }
        return failures
    }

    @Test("no session bus in the environment: every call says so, before the library is opened (a missing one is not what is reported)")
    func noBusNamed() async throws {
        let folder = try TemporaryDirectory()
        let keyring = SecretServiceKeyring(environment: [
            "HOME": folder.path, "XDG_RUNTIME_DIR": folder.path, "GITBAY_SYNC_LIBSECRET": folder.file("libsecret-1.so.0"),
        ])

        let failures = await Self.failures(of: keyring)

        #expect(failures.count == 3)
        for failure in failures {
            guard case .noSessionBus = failure else {
                Issue.record("expected noSessionBus, got \(String(describing: failure))")
                continue
            }
        }
    }

    @Test("a bus address where nothing listens: no session bus, and the secret is in no error")
    func nothingListening() async throws {
        let folder = try TemporaryDirectory()
        let keyring = SecretServiceKeyring(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(folder.file("no-such-bus"))"])

        let failures = await Self.failures(of: keyring)

        for failure in failures {
            guard case .noSessionBus(let detail) = failure else {
                Issue.record("expected noSessionBus, got \(String(describing: failure))")
                continue
            }
            #expect(!detail.isEmpty)
            #expect(!"\(String(describing: failure))".contains("gb_secret_value"))
        }
    }

    @Test("a bus that accepts and never answers: timed out at the bound, never a hang")
    func silentBus() async throws {
        let folder = try TemporaryDirectory()
        let silent = try SilentUnixSocket(path: folder.file("silent-bus"))
        defer { silent.close() }
        let keyring = SecretServiceKeyring(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(silent.path)"], timeout: .milliseconds(300))

        let failures = await Self.failures(of: keyring)

        #expect(failures == [.timedOut(.milliseconds(300)), .timedOut(.milliseconds(300)), .timedOut(.milliseconds(300))])
    }

    @Test("libsecret missing: the library is named, and nothing else is tried")
    func libraryMissing() async throws {
        let folder = try TemporaryDirectory()
        let missing = folder.file("libsecret-1.so.0")
        let keyring = SecretServiceKeyring(environment: ["GITBAY_SYNC_LIBSECRET": missing, "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"])

        let failures = await Self.failures(of: keyring)

        #expect(keyring.libraryPath == missing)
        for failure in failures {
            guard case .libraryMissing(let path, let detail) = failure else {
                Issue.record("expected libraryMissing, got \(String(describing: failure))")
                continue
            }
            #expect(path == missing)
            #expect(detail.contains("libsecret-1.so.0"))
        }
    }

    /// An environment and the address it names, or nil for none.
    struct AddressCase: Sendable, CustomTestStringConvertible {
        let name: String
        let environment: [String: String]
        let existing: [String]
        let address: String?
        var testDescription: String { name }
    }

    static let addressCases: [AddressCase] = [
        AddressCase(
            name: "the variable wins", environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/a", "XDG_RUNTIME_DIR": "/run/user/1"],
            existing: ["/run/user/1/bus"], address: "unix:path=/a"),
        AddressCase(
            name: "else the runtime folder's bus", environment: ["XDG_RUNTIME_DIR": "/run/user/1"], existing: ["/run/user/1/bus"],
            address: "unix:path=/run/user/1/bus"),
        AddressCase(
            name: "escaped in the address", environment: ["XDG_RUNTIME_DIR": "/tmp/a b,c"], existing: ["/tmp/a b,c/bus"],
            address: "unix:path=/tmp/a%20b%2cc/bus"),
        AddressCase(
            name: "an empty variable is unset", environment: ["DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": "/run/user/1"],
            existing: ["/run/user/1/bus"], address: "unix:path=/run/user/1/bus"),
        AddressCase(name: "no socket in the runtime folder", environment: ["XDG_RUNTIME_DIR": "/run/user/1"], existing: [], address: nil),
        AddressCase(name: "a relative runtime folder", environment: ["XDG_RUNTIME_DIR": "run"], existing: ["run/bus"], address: nil),
        AddressCase(name: "disabled:", environment: ["DBUS_SESSION_BUS_ADDRESS": "disabled:"], existing: [], address: nil),
        AddressCase(name: "nothing at all", environment: [:], existing: [], address: nil),
    ]

    @Test("the session bus is found in the environment given, as GDBus finds it", arguments: addressCases)
    func address(_ example: AddressCase) {
        let found = SessionBus.address(in: example.environment, exists: example.existing.contains)
        switch (found, example.address) {
        case (.success(let address), let wanted?): #expect(address == wanted)
        case (.failure(.noSessionBus), nil): break
        default: Issue.record("got \(found)")
        }
    }
}

/// A Unix socket that accepts connections into its backlog and never says a word: a bus
/// that hangs.
final class SilentUnixSocket: Sendable {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        #if canImport(Darwin)
        descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #else
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}
