import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock beside the database, so that only one gitbay-sync changes the state at a
/// time. Held until `release()` or the process ends (the kernel drops `flock` locks with the
/// descriptor, so a killed process never leaves a stale lock).
public final class RunLock: Sendable {
    private let descriptor: Int32
    public let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Takes the lock (creating its file 0600 when missing), polling until `wait` has passed;
    /// throws `StoreError.locked` then. A lock file another user owns or can write is refused.
    public static func acquire(path: String, wait: Duration) async throws -> RunLock {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError.notWritable(path: path, detail: StateLocation.errnoText())
        }
        // Checked on the open descriptor, so the file judged is the file locked.
        var info = stat()
        let problem: StoreError? = if fstat(descriptor, &info) != 0 {
            .notWritable(path: path, detail: StateLocation.errnoText())
        } else if (info.st_mode & S_IFMT) != S_IFREG {
            .notWritable(path: path, detail: "not a regular file")
        } else {
            StateLocation.ownershipProblem(info, path: path)
        }
        if let problem {
            close(descriptor)
            throw problem
        }
        let clock = ContinuousClock()
        let deadline = clock.now + wait
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                return RunLock(descriptor: descriptor, path: path)
            }
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let detail = StateLocation.errnoText()
                close(descriptor)
                throw StoreError.notWritable(path: path, detail: detail)
            }
            if clock.now >= deadline {
                close(descriptor)
                let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
                throw StoreError.locked(path: path, waitedSeconds: seconds)
            }
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                close(descriptor)
                throw error
            }
        }
    }

    public func release() {
        flock(descriptor, LOCK_UN)
    }

    deinit {
        close(descriptor)
    }
}
