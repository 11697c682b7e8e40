#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pipe whose two ends are closed when this process starts a child (close-on-exec), so
/// that only the child given an end through `SpawnedChild.spawn` holds it.
package struct ChildPipe {
    package let readEnd: Int32
    package let writeEnd: Int32

    package init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SpawnedChild.Failed(call: "pipe", code: errno) }
        // A child another test starts between the two calls may inherit an end (Glibc's
        // module has no pipe2). That costs at most a wait: a read to the end of the pipe
        // waits for that short-lived child too, and writers are stopped by a signal.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    package func closeBoth() {
        close(readEnd)
        close(writeEnd)
    }
}
