import Dispatch
import Foundation
import GitbayFake
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Whether end of file on stdin should stop the server: only when stdin is a pipe, a socket or
/// a terminal. A script's background job gets /dev/null, which is at end of file at once.
func stdinSignalsParent() -> Bool {
    var status = stat()
    guard fstat(STDIN_FILENO, &status) == 0 else { return false }
    let kind = status.st_mode & S_IFMT
    return kind == S_IFIFO || kind == S_IFSOCK || isatty(STDIN_FILENO) == 1
}

let options: Options
do {
    switch try Options.parse(Array(CommandLine.arguments.dropFirst())) {
    case .help:
        print(Options.usage)
        exit(0)
    case .run(let parsed):
        options = parsed
    }
} catch {
    FileHandle.standardError.write(Data("""
        Error: \(error.message)
        USAGE: gitbay-fake-server [--port <n>] [--users <a,b,...>] [--latency-ms <n>] [--rows-per-account] [--no-device-id] [--rate-limits]
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
server.rowsPerAccount = options.rowsPerAccount
server.returnsDeviceID = options.returnsDeviceID
server.enforceRateLimits = options.enforceRateLimits

// Names are restricted to characters that need no JSON escaping.
let tokens = options.users.map { "\"\($0)\":\"\(server.mintToken(for: $0))\"" }.joined(separator: ",")
// Written straight to the descriptor, unbuffered: a parent reading the line must get it now.
FileHandle.standardOutput.write(Data("{\"url\":\"\(server.baseURL)\",\"tokens\":{\(tokens)}}\n".utf8))

let finished = DispatchSemaphore(value: 0)
signal(SIGTERM, SIG_IGN)
signal(SIGINT, SIG_IGN)
signal(SIGPIPE, SIG_IGN)
let signalSources = [SIGTERM, SIGINT].map { number in
    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
    source.setEventHandler { finished.signal() }
    source.resume()
    return source
}
if stdinSignalsParent() {
    Thread {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count > 0 || (count < 0 && errno == EINTR) { continue }
            finished.signal()
            return
        }
    }.start()
}

finished.wait()
server.stop()
withExtendedLifetime(signalSources) {}
exit(0)
