#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The user's home folder: `$HOME`, else the password database's entry for this user.
package enum HomeFolder {
    package static func path(environment: [String: String]) -> String {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        if let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir {
            return String(cString: directory)
        }
        return "/"
    }
}
