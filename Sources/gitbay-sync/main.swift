import GitbaySupport
import GitbaySync

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

MallocArenas.limitToOne()
// First, before any secret is read: a core file or a debugger of the same user could hold them.
let coreDumpFailures = CoreDumps.forbid()
let arguments = Array(CommandLine.arguments.dropFirst())
let shutdown = ShutdownSignal()
var context = CLIContext(environment: ProcessInfo.processInfo.environment, console: .standard(shutdown: shutdown))
context.shutdown = shutdown
for failure in coreDumpFailures {
    context.console.err("gitbay-sync: warning: core dumps could not be turned off (\(failure))")
}
// SIGTERM and SIGINT reach `run --every` and a running pre-remove hook as stop requests; other
// commands end on them as before, after turning echo back on at a hidden prompt or stopping a
// hook, as SIGHUP and SIGQUIT do.
let signalTrap = SignalTrap.trap(for: shutdown)
if signalTrap == nil {
    context.console.err("gitbay-sync: warning: signals could not be caught (no pipe); Ctrl-C at a hidden prompt may leave echo off")
}
let code = await GitbaySyncCLI.run(arguments: arguments, context: context)
// A command that stopped on a signal (and said so) ends by it, as the shell expects.
if code > 128, let number = shutdown.stopSignal, code == 128 + number { shutdown.endProcess(by: number) }
signalTrap?.cancel()
exit(code)
