import FoundationEssentials
import GitbaySync
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
let context = CLIContext(environment: ProcessInfo.processInfo.environment, console: .standard)
// SIGTERM and SIGINT reach `run --every` as stop requests; other commands end on them as before.
let signalSources = context.shutdown.trapTerminationSignals()
let code = await GitbaySyncCLI.run(arguments: arguments, context: context)
signalSources.forEach { $0.cancel() }
exit(code)
