import GitbaySupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CommandRunner {
    /// How long one call of systemctl (or launchctl) may take before it is stopped.
    static let serviceManagerTimeout: Duration = .seconds(60)

    /// `service install --enable`, once the units are written: runs the activation's steps
    /// in order, stopping at the first that fails.
    func activate(_ units: ServiceUnits, folder: UnitFolder) async -> (ServiceActivation, ServiceActivation.Outcome) {
        let plistPath = folder.filePath(units.files[0].name)
        let plan = ServiceActivation(units.platform, userID: UInt32(getuid()), plistPath: plistPath)
        return (plan, await perform(plan))
    }

    /// Runs `plan`'s steps in order, stopping at the first that fails.
    func perform(_ plan: ServiceActivation) async -> ServiceActivation.Outcome {
        let program: NamedProgram
        switch NamedProgram.resolve(plan.program, variable: plan.variable, environment: context.environment) {
        case .success(let found): program = found
        case .failure(let failure): return .noProgram(failure)
        }
        for step in plan.steps {
            let argv = program.words + step.arguments
            logger.debug("service: running \(argv.joined(separator: " "))")
            let child = ChildProgram(path: program.path, argv: argv, environment: context.environment, timeout: Self.serviceManagerTimeout)
            switch await child.run(shutdown: context.shutdown) {
            case .success(let ending):
                let output = String(decoding: ending.errorOutput + ending.output, as: UTF8.self)
                if let outcome = plan.outcome(of: step, status: ending.status, output: output) { return outcome }
            case .failure(.cannotStart(let code)):
                return .failed(step: step.arguments, status: nil, detail: "could not be started: \(String(cString: strerror(code)))")
            case .failure(.timedOut):
                return .failed(
                    step: step.arguments, status: nil, detail: "still running after \(IntervalParser.format(Self.serviceManagerTimeout)); stopped")
            case .failure(.outputTooLong):
                return .failed(step: step.arguments, status: nil, detail: "wrote more than gitbay-sync reads; stopped")
            case .failure(.interrupted):
                return .failed(step: step.arguments, status: nil, detail: "interrupted; stopped")
            }
        }
        return .active
    }

    /// What went wrong in one call of the service manager, in a few words.
    static func said(_ outcome: ServiceActivation.Outcome, program: String) -> String {
        let call = { (arguments: [String]) in "`\(([program] + arguments).joined(separator: " "))`" }
        switch outcome {
        case .active: return "it went through"
        case .noProgram(let failure): return "\(failure)"
        case .noUserManager(let step, let detail): return "\(call(step)) found no systemd user manager to talk to (\(detail))"
        case .failed(let step, let status, let detail):
            return "\(call(step)) failed (\(status.map { "exit \($0)" + (detail.isEmpty ? "" : ": \(detail)") } ?? detail))"
        case .notActive(let detail): return "not running (\(detail))"
        }
    }

    /// The error of an activation that did not end `active`: the units are written, and it says
    /// what was and was not done, and what to do.
    static func activationFailure(
        _ plan: ServiceActivation, _ outcome: ServiceActivation.Outcome, written: [String], interval: Duration
    ) -> CommandFailure {
        let wrote = "the units were written (\(written.joined(separator: ", ")))"
        let call = { (arguments: [String]) in "`\(([plan.program] + arguments).joined(separator: " "))`" }
        let everyFix = "or run `gitbay-sync run --every \(IntervalParser.format(interval))` under a supervisor of your own"
        let lingerFix =
            "`loginctl enable-linger $USER` starts your user manager at boot and keeps it running, with the timer, while you are logged out (without linger, a machine you are not logged in to, such as a headless one, stops the timer at logout); then log in again and run `gitbay-sync service install --enable`; \(everyFix)"
        let message: String
        switch outcome {
        case .active:
            preconditionFailure("an active service is no failure")
        case .noProgram(let failure):
            message =
                "\(wrote), but nothing was enabled: \(failure), so there is no service manager to run them here. Install systemd, or set \(ServiceActivation.systemctlVariable); \(everyFix)"
        case .noUserManager(let step, let detail):
            message =
                "\(wrote), but nothing was enabled: \(call(step)) found no systemd user manager to talk to (\(detail)). Fix: \(lingerFix)"
        case .failed(let step, let status, let detail):
            let done = plan.steps.prefix { $0.arguments != step }.filter { !$0.mayFail }.map { call($0.arguments) }
            let said = status.map { "exit \($0)" + (detail.isEmpty ? "" : ": \(detail)") } ?? detail
            let before = done.isEmpty ? "nothing was enabled" : "\(done.joined(separator: " and ")) went through, nothing after it was done"
            message =
                "\(wrote), but \(call(step)) failed (\(said)); \(before). Run `\(ServiceUnits.enableCommand(plan.isSystemd ? .systemd : .launchd))` yourself to see why"
        case .notActive(let detail):
            let what = plan.isSystemd ? "the timer" : "the agent"
            message =
                "\(wrote) and enabled, but \(call(plan.steps.last?.arguments ?? [])) says \(what) is not running\(detail.isEmpty ? "" : " (\(detail))"). See \(plan.isSystemd ? "`systemctl --user status \(ServiceUnits.timerName)`" : "`launchctl print gui/$(id -u)/\(ServiceUnits.launchdLabel)`")"
        }
        return CommandFailure(message, exitCode: .notEnabled)
    }
}

extension ServiceActivation {
    var isSystemd: Bool { program == "systemctl" }
}
