#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StateStore {
    /// This device as stored, without creating its row (nil when there is none yet): for
    /// checks that must not change the database.
    package func storedDevice() throws -> DeviceRecord? {
        try access { database in try Self.readDevice(database) }
    }
}
