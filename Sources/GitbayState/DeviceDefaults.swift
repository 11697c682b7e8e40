#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Defaults for a new device row.
package enum DeviceDefaults {
    /// The host name, or `gitbay-sync` when it cannot be read.
    package static func hostLabel() -> String {
        let name = ProcessInfo.processInfo.hostName
        return name.isEmpty ? "gitbay-sync" : name
    }

    /// `gbs-` and six random base-36 characters: short, readable, unique enough per user.
    package static func newInstallMarker() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return "gbs-" + String((0..<6).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }
}
