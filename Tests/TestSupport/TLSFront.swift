import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `scripts/h2-tls-front` before one test server: an `https://127.0.0.1:PORT` instance with a
/// throwaway certificate authority, serving HTTP/2 (or HTTP/1.1 only) and counting the TLS
/// connections it accepts and the streams open at once on each. It runs until `stop()`, or
/// until this process goes away (its standard input, a pipe we hold, reaches its end).
package final class TLSFront: Sendable {
    /// Why the front did not start: a missing `h2` module or `openssl` names scripts/install-deps.
    package struct StartFailed: Error, CustomStringConvertible {
        package let description: String
    }

    /// What the front's `/stats` says.
    package struct Stats: Sendable, Decodable {
        /// TLS connections accepted (handshakes completed).
        package let connections: Int
        /// Connections by the protocol agreed over ALPN (`h2`, `http/1.1`).
        package let protocols: [String: Int]
        /// Requests passed on to the server.
        package let requests: Int
        /// The most requests open at once on one connection.
        package let maxConcurrentStreams: Int
        /// Handshakes that failed, such as a client that does not trust the authority.
        package let failedHandshakes: Int
    }

    /// The instance's URL, `https://127.0.0.1:PORT`.
    package let url: String
    /// The authority that signed the front's certificate (a PEM file).
    package let certificateAuthority: String
    private let controlPort: UInt16
    private let child: SpawnedChild
    private let stdinWriteEnd: Int32

    /// The script, found from this file's path (Tests/TestSupport/TLSFront.swift).
    package static var script: String {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.appendingPathComponent("scripts/h2-tls-front").path
    }

    /// Starts a front before the plain HTTP server at `upstream` (`http://127.0.0.1:PORT`);
    /// `alpn` is `h2` (HTTP/2, HTTP/1.1 for a client that asks for it) or `http/1.1`.
    package init(upstream: String, alpn: String = "h2") throws {
        let errors = try TemporaryDirectory()
        let errorPath = errors.file("stderr")
        let input = try ChildPipe()
        let output = try ChildPipe()
        let errorFile = try ChildProcess.outputFile(errorPath)
        defer { close(errorFile) }
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "LANG": "C.UTF-8"]
        let started: SpawnedChild
        do {
            started = try SpawnedChild.spawn(
                Self.script, ["--upstream", upstream, "--alpn", alpn], environment: environment,
                descriptors: [0: input.readEnd, 1: output.writeEnd, 2: errorFile])
        } catch {
            input.closeBoth()
            output.closeBoth()
            throw StartFailed(description: "could not start \(Self.script): \(error)")
        }
        close(input.readEnd)
        close(output.writeEnd)
        defer { close(output.readEnd) }
        let line = Self.readLine(output.readEnd)
        struct Ready: Decodable {
            let url: String
            let ca: String
            let control: String
        }
        guard let ready = try? JSONDecoder().decode(Ready.self, from: Data(line.utf8)),
            let port = ready.control.split(separator: ":").last.flatMap({ UInt16($0) })
        else {
            close(input.writeEnd)
            started.stop()
            let said = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw StartFailed(
                description: "scripts/h2-tls-front did not start (run scripts/install-deps: it needs openssl and "
                    + "Python's h2 module, Debian's python3-h2): \(said.isEmpty ? line : said)")
        }
        url = ready.url
        certificateAuthority = ready.ca
        controlPort = port
        child = started
        stdinWriteEnd = input.writeEnd
    }

    /// The counters since the start or the last `reset()`.
    package func stats() throws -> Stats {
        let response = try RawHTTP(port: controlPort).send("GET", "/stats")
        return try JSONDecoder().decode(Stats.self, from: Data(response.body))
    }

    /// Zeroes the counters.
    package func reset() throws {
        _ = try RawHTTP(port: controlPort).send("POST", "/reset")
    }

    /// Ends the front: its standard input closes, and it is killed and reaped.
    package func stop() {
        close(stdinWriteEnd)
        child.stop()
    }

    /// The first line the front prints (without its newline), or all it printed before closing.
    private static func readLine(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
