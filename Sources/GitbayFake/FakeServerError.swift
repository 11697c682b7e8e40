#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Why the fake server could not start: a socket call failed.
public struct FakeServerError: Error, Sendable, CustomStringConvertible {
    /// The failing call, e.g. `bind`.
    public let call: String
    /// The `errno` it left.
    public let code: Int32
    /// The port that was asked for (0 for any).
    public let port: UInt16

    public var description: String {
        "fake gitbay server: \(call) on 127.0.0.1:\(port) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}
