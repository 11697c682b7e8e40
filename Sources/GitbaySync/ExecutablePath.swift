import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the running executable really is, symbolic links resolved, so the service units call
/// this binary and not whatever `gitbay-sync` a `PATH` finds later.
enum ExecutablePath {
    static func current() -> String? {
        #if os(Linux)
        // The kernel's own answer, already free of links and relative parts.
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), path.hasPrefix("/") {
            return path
        }
        #endif
        return resolved(CommandLine.arguments.first)
    }

    /// `path` made absolute and free of symbolic links; nil when it does not exist.
    static func resolved(_ path: String?) -> String? {
        guard let path, !path.isEmpty else { return nil }
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }
}
