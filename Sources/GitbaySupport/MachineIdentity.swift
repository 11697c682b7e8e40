#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(IOKit)
// The platform UUID is read through IOKit, its value bridged from CoreFoundation.
import Foundation
import IOKit
#endif

/// This machine, as an install is bound to it: a hash of the operating system's machine
/// identity, never the identity itself. A state database carried to another machine (a copied
/// home, a restored backup) finds another hash there, and so knows it is a copy.
package struct MachineIdentity: Sendable, Equatable, CustomStringConvertible {
    /// SHA-256 (hex) of the identity, under this program's own prefix.
    package let hash: String

    package init(hash: String) {
        self.hash = hash
    }

    /// The identity read as `text` (a machine id), hashed.
    package init(identity text: String) {
        hash = SHA256.hex(SHA256.digest(Array("gitbay-sync machine\n".utf8) + Array(text.utf8)))
    }

    package var description: String { "machine " + String(hash.prefix(12)) }

    /// The files Linux keeps the machine id in, the first one that reads being used:
    /// systemd's, then D-Bus's older one.
    package static let linuxFiles = ["/etc/machine-id", "/var/lib/dbus/machine-id"]

    /// This machine's identity; nil when none can be read (a container without a machine id,
    /// for one), and then a copy cannot be told from the original.
    package static func current() -> MachineIdentity? {
        #if canImport(IOKit)
        return platformUUID().map(MachineIdentity.init(identity:))
        #else
        for path in linuxFiles {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let text = String(decoding: data, as: UTF8.self).trimmingWhitespace()
            // systemd writes 32 hex digits; an empty or "uninitialized" file is no identity.
            if text.count >= 16, text.allSatisfy(\.isHexDigit) { return MachineIdentity(identity: text.lowercased()) }
        }
        return nil
        #endif
    }

    #if canImport(IOKit)
    /// `IOPlatformUUID` of the platform expert: the hardware's own identity on macOS.
    private static func platformUUID() -> String? {
        let service = IOServiceGetMatchingService(kIOMainPortDefault, IOServiceMatching("IOPlatformExpertDevice"))
        guard service != 0 else { return nil }
        defer { IOObjectRelease(service) }
        let value = IORegistryEntryCreateCFProperty(service, "IOPlatformUUID" as CFString, kCFAllocatorDefault, 0)
        return value?.takeRetainedValue() as? String
    }
    #endif
}
