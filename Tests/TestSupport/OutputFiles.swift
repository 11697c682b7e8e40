import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files for a spawned child's stdout and stderr, and /dev/null, opened close-on-exec.
package struct OutputFiles {
    package let outPath: String
    package let errPath: String
    package let out: Int32
    package let err: Int32
    package let null: Int32

    package init(folder: TemporaryDirectory) throws {
        outPath = folder.file("child.out")
        errPath = folder.file("child.err")
        out = open(outPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        err = open(errPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        null = open("/dev/null", O_RDWR | O_CLOEXEC)
        for descriptor in [out, err, null] where descriptor < 0 {
            throw SpawnedChild.Failed(call: "open", code: errno)
        }
    }

    package func closeAll() {
        for descriptor in [out, err, null] { close(descriptor) }
    }

    /// A file's text without its final line break.
    package func text(_ path: String) -> String {
        var text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
