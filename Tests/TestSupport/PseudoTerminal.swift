import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
// Glibc's module map leaves out the XSI pseudo-terminal calls; libc has them all the same.
private func libcFunction<Function>(_ name: String, as type: Function.Type) -> Function {
    guard let address = dlsym(nil, name) else { preconditionFailure("libc has no \(name)") }
    return unsafeBitCast(address, to: type)
}
// swift-format-ignore: AlwaysUseLowerCamelCase
// Named as libc names it.
private let posix_openpt = libcFunction("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
private let grantpt = libcFunction("grantpt", as: (@convention(c) (Int32) -> Int32).self)
private let unlockpt = libcFunction("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
private let ptsname = libcFunction("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
#endif

/// A pseudo-terminal: what is written to `controller` is typed on `follower`, a terminal in
/// its usual (canonical, echoing) mode.
package struct PseudoTerminal {
    package let controller: Int32
    package let follower: Int32

    package init() throws {
        let controller = posix_openpt(O_RDWR | O_NOCTTY)
        guard controller >= 0 else { throw SpawnedChild.Failed(call: "posix_openpt", code: errno) }
        _ = fcntl(controller, F_SETFD, FD_CLOEXEC)
        guard grantpt(controller) == 0, unlockpt(controller) == 0, let name = ptsname(controller) else {
            let code = errno
            close(controller)
            throw SpawnedChild.Failed(call: "grantpt/unlockpt/ptsname", code: code)
        }
        let follower = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard follower >= 0 else {
            let code = errno
            close(controller)
            throw SpawnedChild.Failed(call: "open \(String(cString: name))", code: code)
        }
        self.controller = controller
        self.follower = follower
    }

    package func closeBoth() {
        close(follower)
        close(controller)
    }
}
