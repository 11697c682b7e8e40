import GitbayAPI
import GitbayKeyring
import GitbayReconcile
import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `doctor`'s checks of one account, through reads only: `whoami`, `notifications settings
/// show` and `notifications device list`. Push being off on the instance shows only in a
/// `device add`, so that check reads what the last run recorded instead of writing.
struct AccountProbe: Sendable {
    let account: AccountRecord
    let store: StateStore
    /// Where its API token lives, and the token as read there (nil: none is stored).
    let place: TokenPlace?
    let token: Result<Secret, KeyringUnavailable>?
    let client: ClientConfiguration
    let logger: Logger

    /// The longest a probe request may take: doctor waits on it, and never retries it.
    static let requestTimeout: Duration = .seconds(10)
    /// The longest all of one account's probes may take together.
    static let deadline: Duration = .seconds(20)

    /// The probes' client: a run's, with no retry, each request at most `requestTimeout` and
    /// the account's at most `deadline` in all, so that a hung instance holds doctor (which
    /// checks the accounts at once) for no more than that.
    static func configuration(from client: ClientConfiguration) -> ClientConfiguration {
        var probe = client
        probe.retry = .never
        probe.transport = client.transport.limited(to: requestTimeout)
        probe.deadline = min(client.deadline ?? deadline, deadline)
        return probe
    }

    private var name: String { account.name }
    private var signIn: String { FailureText.signInAgain(account) }

    func checks(device: DeviceRecord?, now: Date) async -> [DoctorCheck] {
        let status = (try? await store.status(ofAccount: account.id)) ?? AccountStatusRecord()
        var checks = [placeCheck] + (await serverChecks(device: device))
        if let next = status.nextRetryAt, FailurePolicy.isBeyondAnyWait(next, from: now) {
            // Local: said whether or not the server answers.
            checks.append(
                .fail(
                    "account.schedule", name, "the next attempt \(AccountRow.beyondAnyWait(next))",
                    fix: "check the system clock; the next `gitbay-sync run` tries the account instead of waiting"))
        }
        return checks
    }

    /// Where its API token lives: a warning when it is not in the keyring.
    private var placeCheck: DoctorCheck {
        let detail = KeyringText.place(place)
        guard place != .keyring, place != nil else { return .pass("account.token_store", name, detail) }
        if place == .awaitingKeyring {
            return .warn(
                "account.token_store", name, detail, fix: "a `gitbay-sync run` where the keyring answers (in a desktop session, unlocked) moves it")
        }
        // The sign-in it was made with, over the same SSH destination if it was minted over one.
        let login =
            (["gitbay-sync", "login", account.instance.description] + (account.sshDestination.map { ["--ssh", $0] } ?? [])
            + ["--token-store", "keyring"]).map(ShellWords.quoted).joined(separator: " ")
        return .warn(
            "account.token_store", name, detail, fix: "to keep it in the OS keyring, sign in again where a keyring is unlocked: `\(login)`")
    }

    private func serverChecks(device: DeviceRecord?) async -> [DoctorCheck] {
        if account.state == .removing {
            return [await removalCheck()]
        }
        if account.hasUnusableName {
            // Its token is not sent either: no request goes out for the account.
            var check = DoctorCheck.fail(
                "account.username", name, LocalFailure.unusableName.description, fix: FailureText.removeUnusable(account, shown: false))
            check.shownFix = FailureText.removeUnusable(account, shown: true)
            return [check]
        }
        let apiToken: Secret
        switch token {
        case nil: return [.fail("account.token", name, "no API token is stored", fix: signIn)]
        case .failure(let reason)?:
            return [
                .fail(
                    "account.token", name, "its API token is in the OS keyring, which could not be read: \(reason)",
                    fix: "\(KeyringText.fix(reason)); runs leave the account waiting until then")
            ]
        case .success(let stored)?: apiToken = stored
        }
        let client = GitbayClient(
            instance: account.instance, apiToken: apiToken, accountName: name, configuration: Self.configuration(from: client), logger: logger)
        var checks: [DoctorCheck] = []
        do {
            let whoami = try await client.whoami()
            checks.append(.pass("account.reachable", name, "\(account.instance) answers"))
            guard whoami.username == account.username else {
                checks.append(.fail("account.token", name, "the token belongs to \(whoami.username), not \(account.username)", fix: signIn))
                return checks
            }
            checks.append(.pass("account.token", name, "valid (whoami: \(whoami.username))"))
        } catch {
            return checks + whoamiFailure(error)
        }
        checks.append(await pushCheck(client))
        let status = (try? await store.status(ofAccount: account.id)) ?? AccountStatusRecord()
        checks.append(instancePushCheck(status))
        if let row = await rowCheck(client, status: status, device: device) { checks.append(row) }
        return checks
    }

    /// An account being signed out: what is left of its removal.
    private func removalCheck() async -> DoctorCheck {
        let force = "`\(ShellWords.gitbaySync("remove-account", name, "--force"))` deletes it now"
        let status = (try? await store.status(ofAccount: account.id)) ?? AccountStatusRecord()
        if status.condition == .authFailed {
            return .fail(
                "account.state", name, "being signed out, but the server refused its API token, so nothing retries the removal",
                fix:
                    "sign in again with `\(ShellWords.gitbaySync("login", account.instance))` and run `\(ShellWords.gitbaySync("remove-account", name))` again; \(force)"
            )
        }
        if let detail = status.detail {
            // Deregistered; what is left is the pre-remove hook.
            return .fail(
                "account.state", name, "being signed out: \(detail)" + (status.lastError.map { " (\($0))" } ?? ""),
                fix: "fix the pre-remove hook, then `gitbay-sync run` runs it again and deletes the token; \(force)")
        }
        return .fail(
            "account.state", name, "being signed out, but this device's rows are not all removed yet",
            fix: "`gitbay-sync run` retries the removal (so does the timer, if installed); \(force)")
    }

    /// Whether the account's own notification settings let pushes out.
    private func pushCheck(_ client: GitbayClient) async -> DoctorCheck {
        do {
            let settings = try await client.settings()
            return settings.push
                ? .pass("account.push", name, "push notifications on for the account")
                // Turned off on purpose (`push off`, or the web settings): worth knowing, not a failure.
                : .warn(
                    "account.push", name, "push notifications are off for the account: the server sends this device nothing",
                    fix: "`\(ShellWords.gitbaySync("push", "on", name))`, or turn push on in the account's notification settings")
        } catch {
            return .fail("account.push", name, "settings cannot be read: \(text(error))", fix: "run `gitbay-sync doctor` again later")
        }
    }

    /// Whether the last run found the instance sending no pushes at all.
    private func instancePushCheck(_ status: AccountStatusRecord) -> DoctorCheck {
        status.condition == .pushDisabled
            ? .fail(
                "instance.push", name, "the last run was refused: \(account.instance) does not send push notifications",
                fix: "ask the instance's admin to set `[push] enabled = true`; runs try again hourly, or at once with `gitbay-sync run --now`")
            : .pass("instance.push", name, "not reported off by the last run")
    }

    /// An error's text without the account name it starts with (the check names it).
    private func text(_ error: Error) -> String {
        let text = FailureText.said(error, instance: account.instance, ssh: account.sshDestination)
        return text.hasPrefix(name + ": ") ? String(text.dropFirst(name.count + 2)) : text
    }

    private func whoamiFailure(_ error: Error) -> [DoctorCheck] {
        guard let error = error as? GitbayError else {
            return [.fail("account.reachable", name, "\(text(error))", fix: "check the network and \(account.instance)")]
        }
        switch error.kind {
        case .transport:
            return [
                .fail(
                    "account.reachable", name, "\(account.instance) cannot be reached: \(text(error))",
                    fix: "check the network, and that \(account.instance) is the instance's address")
            ]
        case .notJSON, .malformed, .protocolVersion:
            return [
                .fail(
                    "account.reachable", name, "\(account.instance) answered, but not as a gitbay API: \(text(error))",
                    fix: "check the address; the instance needs `[api] enabled = true`")
            ]
        case .authFailed:
            return [
                .pass("account.reachable", name, "\(account.instance) answers"),
                .fail("account.token", name, "the API token is invalid, expired or revoked", fix: signIn),
            ]
        default:
            return [
                .pass("account.reachable", name, "\(account.instance) answers"),
                .fail("account.token", name, "whoami failed: \(text(error))", fix: "run `gitbay-sync doctor` again later"),
            ]
        }
    }

    /// This device's row on the server, judged by the same rule as `run`: the row of ours that
    /// holds the current token. Nil when no row is expected to be checked.
    private func rowCheck(_ client: GitbayClient, status: AccountStatusRecord, device: DeviceRecord?) async -> DoctorCheck? {
        guard let device else { return nil }
        switch account.state {
        case .paused:
            return .pass(
                "account.device", name, "paused: this device is not registered on purpose (`\(ShellWords.gitbaySync("resume", name))` undoes it)")
        case .removing:
            return nil
        case .active:
            break
        }
        if status.condition == .shadowed {
            return .pass("account.device", name, status.detail ?? "another account of this instance holds the device token")
        }
        let run = "`gitbay-sync run` registers it; `gitbay-sync status` shows why the last run did not"
        do {
            guard case .list(let rows, _) = try await client.listDevices(ifNoneMatch: nil) else {
                return .fail("account.device", name, "the server answered the list with no rows", fix: run)
            }
            let records = try await store.registrations(ofAccount: account.id)
            let ownership = RowOwnership(device: device, records: records, rows: rows)
            if let held = rows.first(where: { $0.id == ownership.heldRowID }) {
                return ownership.isProvenByRecord(held)
                    ? .pass("account.device", name, "row \(held.id) holds this device's token")
                    : .fail(
                        "account.device", name, "row \(held.id) carries this install's marker and shows this device's token, but is not recorded yet",
                        fix: "`gitbay-sync run` records it")
            }
            if let replaced = records.first(where: { ownership.state(of: $0) == .replaced }) {
                return .fail("account.device", name, "row \(replaced.deviceID), recorded as this device's, is now another row", fix: run)
            }
            if let unsettled = rows.first(where: { ownership.kind(of: $0) == .unsettled }) {
                return .fail(
                    "account.device", name,
                    "row \(unsettled.id) is this device's, but whether it holds the current token or an old one cannot be told from the list",
                    fix: "`gitbay-sync run` settles it with one re-add")
            }
            if status.condition == .pushDisabled {
                return .fail(
                    "account.device", name, "no row of this device on the server: the instance takes none while its push is off",
                    fix:
                        "nothing to do here: once the instance sends pushes again (see instance.push), `gitbay-sync run` (or the timer, if installed) registers it"
                )
            }
            return .fail("account.device", name, "no row of this device on the server", fix: run)
        } catch {
            return .fail("account.device", name, "the device list cannot be read: \(text(error))", fix: "run `gitbay-sync doctor` again later")
        }
    }
}
