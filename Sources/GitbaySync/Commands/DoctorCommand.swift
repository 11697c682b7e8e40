import GitbayAPI
import GitbayCurl
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `doctor`.
struct DoctorCommand: PlainCommand {
    static let spec = CommandSpec(
        words: ["doctor"], group: .lookingAround, arguments: [], options: [], summary: "Check the database, the device token and every account.",
        discussion: """
            Checks the state database (integrity, schema, permissions, runs in progress), the device token, and
            for each account: the instance answers, the token is valid, push is on for the account and
            was not refused by the instance in the last run, this device's row is on the server, and
            no next attempt is recorded further ahead than any wait a run sets (a wrong clock).
            Only reads from servers, every account at once; each probe is sent once (no retry) and
            given at most \(AccountProbe.requestTimeout.components.seconds) seconds, an account's probes \(AccountProbe.deadline.components.seconds) seconds in all, so an instance that
            does not answer holds doctor no longer than that; on a terminal, standard error names the
            accounts still probed after a second. Ctrl-C stops the probes in flight: the report then
            says what was checked, names the accounts not checked and doctor ends by the signal
            (130). Names the database once, then prints
            the failures and warnings, each with its fix, and the checks that passed as one line
            (-v lists them); exits 1 when any check fails.
            """,
        examples: [
            .init("Check everything, with the fix for what fails", ["doctor"]),
            .init("The checks as JSON, for monitoring", ["doctor", "--json"]),
        ]
    )

    func run(_ runner: CommandRunner) async throws -> ExitCode {
        try await runner.doctor()
    }
}

extension CommandRunner {
    /// `doctor`: checks the database, the device token, every account and the service,
    /// printing each check with its fix. Only reads from servers, and changes the database no more than opening
    /// it does (migrations). Exits 1 when any check fails.
    fileprivate func doctor() async throws -> ExitCode {
        var checks: [DoctorCheck] = []
        var probed: ProbedAccounts?
        let path = location.databasePath
        let store = await databaseChecks(path, into: &checks)
        if let store {
            checks.append(await installCheck(store))
            checks += await serverNameChecks(store)
            let device = await deviceCheck(store, into: &checks)
            // Without libcurl every account would fail the same way: one check says it instead.
            if let missing = Self.libcurlCheck() {
                checks.append(missing)
            } else {
                probed = await accountChecks(store, device: device)
                checks += probed?.checks ?? []
            }
            checks += await tokenChecks(store)
        }
        checks += await serviceChecks(store)
        show(DoctorOutput(checks: checks, style: textStyle, databasePath: path, verbose: global.verbosity > 0, width: textWidth))
        // What was checked is said; a stop then names the accounts whose probes it cut short.
        if let probed, context.shutdown.phase != .running { try stoppedAsking(probed.accounts, answered: probed.answered) }
        return checks.allSatisfy(\.ok) ? .success : .partialFailure
    }

    /// A failed check when libcurl cannot be opened, so that no account can be checked; nil
    /// when it opens.
    private static func libcurlCheck() -> DoctorCheck? {
        do {
            try ConnectionPool.openLibcurl()
            return nil
        } catch .libcurlUnavailable(let path, let detail) {
            return .fail("libcurl", path, "cannot be opened (\(detail)), so no account was checked", fix: TransportError.libcurlFix)
        } catch {
            return .fail("libcurl", "libcurl", "cannot be used: \(error)", fix: "reinstall libcurl")
        }
    }

    /// The database: present, opens (schema known), intact, private, and no run stuck in it.
    private func databaseChecks(_ path: String, into checks: inout [DoctorCheck]) async -> StateStore? {
        guard location.databaseExists else {
            checks.append(
                .fail("database", path, "no state database here", fix: "sign in with `gitbay-sync login <instance-url>`, or pass the --db you use"))
            return nil
        }
        let store: StateStore
        do {
            store = try await openExistingStore()
        } catch {
            checks.append(
                .fail(
                    "database", path, "cannot be opened: \(FailureText.said(error))",
                    fix: "see the message; a database from a newer gitbay-sync needs that version"))
            // A database refused for who owns or can write it fails its own check too.
            let permissions = permissionsCheck(path)
            if !permissions.ok { checks.append(permissions) }
            return nil
        }
        do {
            let findings = try await store.integrityCheck()
            checks.append(
                findings == ["ok"]
                    ? .pass("database.integrity", path, "integrity check ok")
                    : .fail(
                        "database.integrity", path, "damaged: \(findings.prefix(3).joined(separator: "; "))",
                        fix: "move the file aside and sign in again (the accounts' tokens are in it)"))
            let applied = try await store.appliedMigrations()
            let known = Migration.all.map(\.version)
            checks.append(
                applied == known
                    ? .pass(
                        "database.schema", path,
                        "schema version \(known.last ?? 0), \(applied.count) migration\(applied.count == 1 ? "" : "s") applied")
                    : .fail(
                        "database.schema", path, "applied migrations \(applied) differ from this build's \(known)",
                        fix: "use the gitbay-sync that wrote this database, or pass another --db"))
        } catch {
            checks.append(
                .fail("database.integrity", path, "cannot be read: \(FailureText.said(error))", fix: "move the file aside and sign in again"))
        }
        checks.append(permissionsCheck(path))
        checks.append(await leaseCheck(store))
        return store
    }

    /// The rule the store enforces: no link at the folder or the files; the folder is yours
    /// (its mode is yours to choose); the database, -wal and -shm files are yours and no other
    /// user can write them; and no other user can read the database files, which hold API
    /// tokens.
    private func permissionsCheck(_ path: String) -> DoctorCheck {
        var problems: [String] = []
        var loose: [String] = []
        var links: [String] = []
        var foreign = false
        var info = stat()
        if lstat(location.directory, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFLNK {
                problems.append("\(location.directory) is a symbolic link")
                links.append(location.directory)
            } else if info.st_uid != geteuid() {
                problems.append("\(location.directory) belongs to user id \(info.st_uid)")
                foreign = true
            }
        }
        for file in location.databaseFiles where lstat(file, &info) == 0 {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            switch StateLocation.ownershipProblem(info, path: file) {
            case .symbolicLink?:
                problems.append("\(file) is a symbolic link")
                links.append(file)
            case .foreignOwner(_, let owner)?:
                problems.append("\(file) belongs to user id \(owner)")
                foreign = true
            case .some:
                problems.append("\(file) can be written by other users (mode \(mode))")
                loose.append(file)
            case nil where info.st_mode & 0o077 != 0:
                problems.append("\(file) can be read by other users (mode \(mode))")
                loose.append(file)
            case nil:
                break
            }
        }
        guard problems.isEmpty else {
            var fixes: [String] = []
            if !links.isEmpty {
                fixes.append(
                    "gitbay-sync follows no link there: remove \(links.count == 1 ? "it" : "them") (`rm \(links.joined(separator: " "))`) if you did not make \(links.count == 1 ? "it" : "them"), else pass the real path as --db"
                )
            }
            if !loose.isEmpty { fixes.append("`chmod 600 \(loose.joined(separator: " "))`") }
            if foreign { fixes.append("run gitbay-sync as the user who owns them, or pass a --db of your own") }
            return .fail("database.permissions", path, problems.joined(separator: "; "), fix: fixes.joined(separator: "; "))
        }
        return .pass("database.permissions", path, "the folder and files are yours, and none is a link; no other user can read or write the files")
    }

    /// Runs in progress, from the accounts' leases. A run that has held an account for longer
    /// than any reconcile takes is stuck.
    private func leaseCheck(_ store: StateStore) async -> DoctorCheck {
        let path = location.databasePath
        guard let leases = try? await store.leases() else {
            return .fail("database.leases", path, "cannot be read", fix: "see `gitbay-sync status`")
        }
        let now = context.now()
        let live = leases.filter { $0.isLive(at: now) }
        guard let oldest = live.min(by: { $0.takenAt < $1.takenAt }) else {
            return .pass("database.leases", path, "no run in progress")
        }
        let pids = Set(live.map(\.holderPID)).sorted().map(String.init).joined(separator: ", ")
        if now.timeIntervalSince(oldest.takenAt) > Self.stuckAfter {
            return .fail(
                "database.leases", path,
                "gitbay-sync (pid \(pids)) has been reconciling \(live.count) account\(live.count == 1 ? "" : "s") since \(Timestamp.format(oldest.takenAt))",
                fix: "if it hangs, stop it (`kill \(oldest.holderPID)`): its accounts pass to the next run")
        }
        return .pass("database.leases", path, "a run in progress (pid \(pids)) is reconciling \(live.count) account\(live.count == 1 ? "" : "s")")
    }

    /// Longer than a reconcile of one account takes with every retry and timeout.
    static let stuckAfter: Double = 10 * 60

    /// The device token: set, at most `InputLimit.deviceToken` bytes, no whitespace. Returns the device when its token is plausible.
    private func deviceCheck(_ store: StateStore, into checks: inout [DoctorCheck]) async -> DeviceRecord? {
        let setToken = "`printf %s \"$TOKEN\" | gitbay-sync device set-token`"
        guard let device = try? await store.storedDevice(), let token = device.token else {
            checks.append(.fail("device.token", "device", "no push token is set, so nothing can be registered", fix: "set it: \(setToken)"))
            return nil
        }
        let bytes = token.exposedValue.utf8.count
        if bytes > InputLimit.deviceToken.maximumBytes || token.exposedValue.contains(where: \.isWhitespace) || bytes == 0 {
            let why =
                bytes > InputLimit.deviceToken.maximumBytes
                ? "\(bytes) bytes, more than a server takes (\(InputLimit.deviceToken.maximumBytes))" : "it contains whitespace"
            checks.append(
                .fail(
                    "device.token", "device", "the push token (\(token.prefix())…) is implausible: \(why)",
                    fix: "set the token the platform hands out: \(setToken)"))
            return nil
        }
        checks.append(.pass("device.token", "device", "set (\(token.prefix())…, \(bytes) bytes)"))
        return device
    }
}
