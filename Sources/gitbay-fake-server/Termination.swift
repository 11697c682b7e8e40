import Dispatch
import Foundation

#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Blocks until the process is asked to end: SIGTERM, SIGINT, or end of file on stdin.
///
/// Kept out of `main.swift` on purpose: closures written in top-level code are main-actor
/// isolated, and a signal handler running on a Dispatch queue must not be.
enum Termination {
    static func wait() {
        let finished = DispatchSemaphore(value: 0)
        signal(SIGPIPE, SIG_IGN)
        let sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
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
        sources.forEach { $0.cancel() }
    }

    /// Whether end of file on stdin means the parent is gone: only for a pipe, a socket or a
    /// terminal. A script's background job gets /dev/null, which is at end of file at once.
    private static func stdinSignalsParent() -> Bool {
        var status = stat()
        guard fstat(STDIN_FILENO, &status) == 0 else { return false }
        let kind = status.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFSOCK || isatty(STDIN_FILENO) == 1
    }
}
