#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether systemd runs this system, told as `sd_booted()` tells it: the folder
/// `/run/systemd/system` exists (a symbolic link does not count). Where it does not, no
/// systemd user manager runs the units, whatever `systemctl` is installed.
enum SystemdPresence {
    static let marker = "/run/systemd/system"

    static func booted(marker: String = marker) -> Bool {
        var info = stat()
        return lstat(marker, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
