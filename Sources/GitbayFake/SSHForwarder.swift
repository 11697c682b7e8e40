import Foundation

#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The forced command of the tests' SSH front (`gitbay-fake-server ssh-command --port <p>
/// --user <name>`): runs the command the ssh client sent as `name` on the fake at
/// 127.0.0.1:`p`, prints what it printed and exits with its exit code, which ssh passes on.
///
/// The argv is `$SSH_ORIGINAL_COMMAND` split as `SSHCommandLine` says, without a leading `--`
/// if one came through. No shell reads it. Standard input is read (up to 1 MiB) only for
/// `notifications device add`, the one command that takes it, as gitbay reads it only for
/// that command: any other command returns at once even when the client's stdin stays open.
public enum SSHForwarder {
    /// Largest standard input forwarded, as the API's body limit.
    static let stdinLimit = 1 << 20

    /// Runs the forwarding and returns the exit status for the process.
    public static func run(port: UInt16, user: String, environment: [String: String]) -> Int32 {
        var argv: [String]
        do {
            argv = try SSHCommandLine.split(environment["SSH_ORIGINAL_COMMAND"] ?? "")
        } catch {
            write(STDERR_FILENO, "error: the command line has \(error == .trailingBackslash ? "a lone \\ at its end" : "an unclosed quote")\n")
            return 2
        }
        if argv.first == "--" { argv.removeFirst() }
        let stdin = argv.filter { $0 != "--json" }.starts(with: ["notifications", "device", "add"]) ? readStandardInput() : nil
        var call: [String: Any] = ["user": user, "argv": argv]
        if let stdin { call["stdin"] = stdin }
        guard let body = try? JSONSerialization.data(withJSONObject: call),
            let answer = post(Array(body), port: port),
            let object = try? JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any],
            let exitCode = object["exit_code"] as? Int
        else {
            write(STDERR_FILENO, "error: the fake gitbay server at 127.0.0.1:\(port) did not answer\n")
            return 1
        }
        write(STDOUT_FILENO, object["stdout"] as? String ?? "")
        write(STDERR_FILENO, object["stderr"] as? String ?? "")
        return Int32(clamping: exitCode)
    }

    /// Standard input to its end or to `stdinLimit` bytes, as text.
    private static func readStandardInput() -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < stdinLimit {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk.prefix(count)
        }
        return String(decoding: bytes.prefix(stdinLimit), as: UTF8.self)
    }

    /// `POST /_fake/ssh` with `body` on 127.0.0.1:`port`; the response's body, nil on any failure.
    private static func post(_ body: [UInt8], port: UInt16) -> [UInt8]? {
        guard let socket = PosixSocket.connectLoopback(port: port) else { return nil }
        defer { close(socket) }
        let head = "POST /_fake/ssh HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        guard PosixSocket.sendAll(socket, Array(head.utf8) + body) else { return nil }
        var received: [UInt8] = []
        while true {
            if let end = endOfHead(received) {
                let head = String(decoding: received[..<end], as: UTF8.self).lowercased()
                guard head.hasPrefix("http/1.1 200"),
                    let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                    let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                else { return nil }
                if received.count >= end + 4 + length { return Array(received[(end + 4)..<(end + 4 + length)]) }
            }
            guard let chunk = PosixSocket.receive(socket) else { return nil }
            received += chunk
        }
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            offset += count
        }
    }
}
