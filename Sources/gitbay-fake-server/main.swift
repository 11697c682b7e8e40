import Foundation
import GitbayFake

let options: Options
do {
    switch try Options.parse(Array(CommandLine.arguments.dropFirst())) {
    case .help:
        print(Options.usage)
        exit(0)
    case .run(let parsed):
        options = parsed
    case .forwardSSH(let port, let user):
        signal(SIGPIPE, SIG_IGN)
        exit(SSHForwarder.run(port: port, user: user, environment: ProcessInfo.processInfo.environment))
    }
} catch {
    FileHandle.standardError.write(
        Data(
            """
            Error: \(error.message)
            \(Options.usageLine)
            See 'gitbay-fake-server --help'.

            """.utf8))
    exit(64)
}

let server: FakeGitbayServer
do {
    server = try FakeGitbayServer(port: options.port)
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
server.latency = .milliseconds(options.latencyMilliseconds)
server.returnsDeviceID = options.returnsDeviceID
server.enforceRateLimits = options.enforceRateLimits

// Names are restricted to characters that need no JSON escaping.
let tokens = options.users.map { "\"\($0)\":\"\(server.mintToken(for: $0))\"" }.joined(separator: ",")
// Written straight to the descriptor, unbuffered: a parent reading the line must get it now.
FileHandle.standardOutput.write(Data("{\"url\":\"\(server.baseURL)\",\"tokens\":{\(tokens)}}\n".utf8))

Termination.wait()
server.stop()
exit(0)
