import GitbayReconcile
import GitbaySupport
/// Every command, as the parser and the help know it.
enum CommandTable {
    private static let account = CommandSpec.Argument(name: "account", optional: false, help: "An account as `gitbay-sync accounts` names it: user@host or user@host:port.")
    private static let every = CommandSpec.Option(name: "--every", valueName: "DURATION", help: "The period: 30s, 15m, 1h, 1h30m, 1d (10s to 7d).")

    static let all: [CommandSpec] = [
        CommandSpec(
            words: ["login"], arguments: [.init(name: "instance-url", optional: false, help: "The instance, e.g. https://gitbay.org (plain http only for loopback).")],
            options: [], summary: "Sign in to an account with an API token.",
            discussion: """
                Reads a full-scope API token on stdin (or asks for it without echo on a terminal), at
                most 1 KiB of printable ASCII, checks it with `whoami`, and stores the account as
                user@host. Mint a token with `token create --name gitbay-sync --scope full` on the
                instance. When a device token is set, the new account is registered at once. A failed
                sign-in stores nothing.
                """,
            build: { parsed throws(UsageError) in .login(instance: parsed.argument(0)!) }
        ),
        CommandSpec(
            words: ["accounts"], arguments: [], options: [], summary: "List the signed-in accounts.",
            discussion: "Every account with its state, its condition and this device's row on its server.",
            build: { _ throws(UsageError) in .accounts }
        ),
        CommandSpec(
            words: ["remove-account"], aliases: ["logout"], arguments: [account],
            options: [.init(name: "--force", valueName: nil, help: "Delete now even if the server cannot be reached or the hook fails; lists the rows left behind.")],
            summary: "Sign out: deregister this device, then delete the token.",
            discussion: """
                Runs the pre-removal hook: deregisters every row this device holds for the account,
                then runs $XDG_CONFIG_HOME/gitbay-sync/hooks/pre-remove if it is executable, and only
                then deletes the API token and the records. If the account held the device token on
                its instance, another account there takes it over at once. If the server cannot be
                reached, or the hook fails, the account stays `removing` with its token (exit 69), and
                `gitbay-sync run` retries the removal (so does the timer, if installed).
                `logout` is another name for this command.
                """,
            build: { parsed throws(UsageError) in .removeAccount(account: parsed.argument(0)!, force: parsed.flags.contains("--force")) }
        ),
        CommandSpec(
            words: ["pause"], arguments: [account], options: [], summary: "Stop pushes to this device for an account, keeping it signed in.",
            discussion: """
                Deregisters this device for the account at once, and keeps it that way until `resume`.
                If the server cannot be reached, the account is paused all the same, the command exits 1,
                and `gitbay-sync run` deregisters the device once the server answers.
                """,
            build: { parsed throws(UsageError) in .pause(account: parsed.argument(0)!) }
        ),
        CommandSpec(
            words: ["resume"], arguments: [account], options: [], summary: "Undo `pause`: register this device for the account again.",
            discussion: """
                Registers this device for the account again at once (or leaves it shadowed, when another
                account of the instance holds the device token). If the server cannot be reached, the
                command exits 1 and `gitbay-sync run` registers the device once the server answers.
                """,
            build: { parsed throws(UsageError) in .resume(account: parsed.argument(0)!) }
        ),
        CommandSpec(
            words: ["prefer"], arguments: [account], options: [],
            summary: "Choose which account of an instance holds this device's token.",
            discussion: """
                A gitbay server gives a device token to one account of an instance at a time. With two
                accounts on one instance, the earliest signed in holds it unless you prefer another.
                The token moves at once; a paused account (or one whose API token was refused) cannot
                hold it, and takes it once resumed (or signed in again).
                """,
            build: { parsed throws(UsageError) in .prefer(account: parsed.argument(0)!) }
        ),
        CommandSpec(
            words: ["device", "set-token"], arguments: [],
            options: [.init(name: "--label", valueName: "LABEL", help: "The device's name on the servers (default: the host name).")],
            summary: "Set this device's push token (read on stdin).",
            discussion: """
                Reads the push token on stdin: up to 512 bytes, no spaces. A different token than the
                current one is a rotation: the next run adds the new token, then removes the rows made
                with the old one.
                """,
            build: { parsed throws(UsageError) in .deviceSetToken(label: parsed.values["--label"]) }
        ),
        CommandSpec(
            words: ["device", "show"], arguments: [], options: [], summary: "Show this device: label, install marker, token prefix.",
            discussion: "Only the first 8 bytes of the token are ever shown.",
            build: { _ throws(UsageError) in .deviceShow }
        ),
        CommandSpec(
            words: ["device", "clear"], arguments: [], options: [], summary: "Deregister this device everywhere and forget its token.",
            discussion: "Removes this device's rows on every account, then forgets the token.",
            build: { _ throws(UsageError) in .deviceClear }
        ),
        CommandSpec(
            words: ["run"], arguments: [],
            options: [
                every,
                .init(name: "--concurrency", valueName: "N", help: "How many accounts to reconcile at once (1 to 64, default 8)."),
                .init(name: "--now", valueName: nil, help: "Also try the accounts waiting out a backoff or a server's Retry-After, at once."),
                .init(name: "--unattended", valueName: nil, help: "Record the run's time and result as the service's, for `doctor` (the units pass it)."),
            ],
            summary: "Reconcile every account with its server once (or every DURATION).",
            discussion: """
                Lists this device's rows on each account's server and adds or removes rows until the
                server holds exactly what it should: one row with the current token for each active
                account, none for paused or removed accounts or old tokens. Exits 0 when every account
                is in its desired state or waits out a backoff, 1 when any failed (named on stderr).

                An account that failed is left alone until its next attempt is due: a server's
                Retry-After or write-limit wait, else one minute doubling per failure in a row (at most
                an hour; an hour for a denied or push-disabled account). It is reported `skipped` with
                that time, and `gitbay-sync status` shows it. To try every account now anyway, run
                `gitbay-sync run --now`. There must be a state database already (exit 66 otherwise):
                `run` never creates one.

                With --every, repeats every DURATION (±10%) until SIGTERM or SIGINT, one line on stderr
                per account that changed or failed (-v: every account); a failing account waits out its
                own backoff (at most DURATION, unless a server asks for longer). The first signal lets
                requests in flight finish and exits 0; a second cancels them. --json prints one JSON
                object per cycle (JSON Lines). --now cannot be combined with --every.
                """,
            build: { parsed throws(UsageError) in
                let every = try parsed.values["--every"].map(Self.interval)
                let now = parsed.flags.contains("--now")
                if every != nil, now {
                    throw UsageError("--now and --every cannot be combined: every cycle of --every waits out each account's backoff", command: ["run"])
                }
                return .run(
                    every: every, concurrency: try parsed.values["--concurrency"].map(Self.concurrency), now: now,
                    unattended: parsed.flags.contains("--unattended")
                )
            }
        ),
        CommandSpec(
            words: ["status"], arguments: [], options: [], summary: "Show each account's condition and this device.",
            discussion: "Per account: condition, server device id, last success, last error and next retry.",
            build: { _ throws(UsageError) in .status }
        ),
        CommandSpec(
            words: ["doctor"], arguments: [], options: [], summary: "Check the database, the device token and every account.",
            discussion: """
                Checks the state database (integrity, schema, permissions, runs in progress), the device token, and
                for each account: the instance answers, the token is valid, push is on for the account and
                was not refused by the instance in the last run, and this device's row is on the server.
                Only reads from servers. Prints each check with OK or FAIL and the fix; exits 1 when any
                check fails.
                """,
            build: { _ throws(UsageError) in .doctor }
        ),
        CommandSpec(
            words: ["devices"], arguments: [.init(name: "account", optional: true, help: "Only this account.")], options: [],
            summary: "List the devices registered on each account's server.",
            discussion: "Marks this device's row and rows of this install's old tokens. To remove a row: `gitbay-sync devices remove <account> <id>`.",
            build: { parsed throws(UsageError) in .devices(account: parsed.argument(0)) }
        ),
        CommandSpec(
            words: ["devices", "remove"],
            arguments: [account, .init(name: "id", optional: false, help: "The server's device id, from `gitbay-sync devices`.")],
            options: [.init(name: "--yes", valueName: nil, help: "Do not ask for confirmation (required when not on a terminal).")],
            summary: "Remove one device row from an account's server.",
            discussion: "For an old phone, say. Removing this device's own row lasts until the next run unless the account is paused.",
            build: { parsed throws(UsageError) in
                guard let id = Int(parsed.argument(1)!), id > 0 else {
                    throw UsageError("'\(parsed.argument(1)!)' is not a device id; give the number `gitbay-sync devices` shows", command: ["devices", "remove"])
                }
                return .devicesRemove(account: parsed.argument(0)!, id: id, yes: parsed.flags.contains("--yes"))
            }
        ),
        CommandSpec(
            words: ["push", "on"], arguments: [account], options: [], summary: "Turn the account's push notifications on (server-side).",
            discussion: "Sets `notifications settings push on` for the account.",
            build: { parsed throws(UsageError) in .push(.on, account: parsed.argument(0)) }
        ),
        CommandSpec(
            words: ["push", "off"], arguments: [account], options: [], summary: "Turn the account's push notifications off (server-side).",
            discussion: "Sets `notifications settings push off`: the rows stay, the server sends nothing.",
            build: { parsed throws(UsageError) in .push(.off, account: parsed.argument(0)) }
        ),
        CommandSpec(
            words: ["push", "show"], arguments: [.init(name: "account", optional: true, help: "Only this account.")], options: [],
            summary: "Show the push switch of each account (or one).",
            discussion: "Reads `notifications settings show` for each account.",
            build: { parsed throws(UsageError) in .push(.show, account: parsed.argument(0)) }
        ),
        CommandSpec(
            words: ["resolve"], arguments: [], options: [], summary: "Tell which account a push payload (on stdin) belongs to, and where it points.",
            discussion: """
                Matches the payload's instance and user to a signed-in account and prints the web URL
                to open. The payload is read on stdin, at most 4096 bytes (what APNs delivers).
                """,
            build: { _ throws(UsageError) in .resolve }
        ),
        CommandSpec(
            words: ["service", "install"], arguments: [],
            options: [every, .init(name: "--force", valueName: nil, help: "Replace unit files of the same name that `service install` did not write.")],
            summary: "Install the login service and periodic timer (systemd user units or a launchd agent).",
            discussion: """
                Writes gitbay-sync.service (runs once at login) and gitbay-sync.timer (every DURATION,
                default 15m) under $XDG_CONFIG_HOME/systemd/user/ (Linux), or a launchd agent with
                RunAtLoad and StartInterval under ~/Library/LaunchAgents (macOS). They run
                `run --unattended` by this binary's real path, with the absolute --db this shell uses and
                XDG_CONFIG_HOME set to this shell's (where the pre-remove hook is). A file of the same
                name that `service install` did not write is left alone (exit 73) unless --force.
                Prints the command that enables them.
                """,
            build: { parsed throws(UsageError) in
                .serviceInstall(every: try parsed.values["--every"].map(Self.interval), force: parsed.flags.contains("--force"))
            }
        ),
        CommandSpec(
            words: ["service", "uninstall"], arguments: [],
            options: [.init(name: "--force", valueName: nil, help: "Also remove unit files of those names that `service install` did not write.")],
            summary: "Remove the units `service install` wrote.",
            discussion: "Removes the service and timer units (or the launchd agent) and the links `systemctl enable` made. A file of the same name that `service install` did not write is left alone (exit 73, nothing removed) unless --force.",
            build: { parsed throws(UsageError) in .serviceUninstall(force: parsed.flags.contains("--force")) }
        ),
        CommandSpec(
            words: ["service", "show"], arguments: [], options: [every], summary: "Print the units `service install` would write.",
            discussion: "Writes nothing.",
            build: { parsed throws(UsageError) in .serviceShow(every: try parsed.values["--every"].map(Self.interval)) }
        ),
    ] + documentationCommands

    /// The first words of every command and their aliases, for "unknown command" suggestions.
    static var commandNames: [String] {
        var seen: [String] = []
        for word in all.flatMap({ [$0.words[0]] + $0.aliases }) where !seen.contains(word) { seen.append(word) }
        return seen + ["help"]
    }

    /// True when `words` is the first word of commands that all have a second word
    /// (`device`, `push`, `service`): a group, with help of its own but nothing to run.
    static func isGroup(_ words: [String]) -> Bool {
        guard words.count == 1 else { return false }
        let family = all.filter { $0.words[0] == words[0] }
        return !family.isEmpty && family.allSatisfy { $0.words.count == 2 }
    }

    /// The commands of a group, in table order.
    static func group(_ first: String) -> [CommandSpec] {
        all.filter { $0.words[0] == first && $0.words.count == 2 }
    }

    /// Every long option of every command, and the global ones.
    static var longOptionNames: Set<String> {
        Set((all.flatMap(\.options) + GlobalOption.all).map(\.name))
    }

    /// Every option that takes a value, so tokenising needs no command.
    static var valueOptions: Set<String> {
        Set((all.flatMap(\.options) + GlobalOption.all).filter { $0.valueName != nil }.map(\.name))
    }

    private static func interval(_ text: String) throws(UsageError) -> Duration {
        do {
            return try IntervalParser.parse(text)
        } catch {
            throw UsageError("invalid value for --every: \(error)")
        }
    }

    private static func concurrency(_ text: String) throws(UsageError) -> Int {
        guard let number = Int(text), (1...64).contains(number) else {
            throw UsageError("invalid value for --concurrency: '\(text)'; give a whole number from 1 to 64")
        }
        return number
    }
}
