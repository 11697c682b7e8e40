import Foundation
import GitbaySync

let arguments = Array(CommandLine.arguments.dropFirst())
let context = CLIContext(environment: ProcessInfo.processInfo.environment, console: .standard)
let code = await GitbaySyncCLI.run(arguments: arguments, context: context)
exit(code)
