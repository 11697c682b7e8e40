import GitbayState

#if canImport(Darwin)
import Foundation
#endif

/// The Data Protection class the state database is kept in on Apple's platforms, as
/// `FileProtectionType` names them. The folder holding the database is given it too, so the
/// -wal and -shm files SQLite makes there later take it. Elsewhere (Linux) it changes nothing.
///
/// A database the system has locked cannot be opened or written: `.complete` suits an app that
/// reconciles only while it is in front; a background refresh, which may run while the device
/// is locked, needs `.completeUntilFirstUserAuthentication` (the system's default for an app's
/// files) or `.completeUnlessOpen` with the database left open.
public enum GitbayFileProtection: String, Sendable, Equatable, CaseIterable {
    /// Readable only while the device is unlocked (`FileProtectionType.complete`).
    case complete
    /// Files open when the device locks stay usable; no new file can be made while it is locked.
    case completeUnlessOpen
    /// Readable once the device has been unlocked once since it started.
    case completeUntilFirstUserAuthentication
    /// No protection (`FileProtectionType.none`).
    case unprotected

    /// Gives the database's folder and the files in it now this class. Apple's platforms only:
    /// a no-op elsewhere. Throws the file system's error.
    func apply(to location: StateLocation) throws {
        #if canImport(Darwin)
        // This branch is compiled by an Apple build only, which has not been tried.
        let attributes: [FileAttributeKey: Any] = [.protectionKey: fileProtectionType]
        for path in [location.directory] + location.databaseFiles where FileManager.default.fileExists(atPath: path) {
            try FileManager.default.setAttributes(attributes, ofItemAtPath: path)
        }
        #endif
    }

    #if canImport(Darwin)
    private var fileProtectionType: FileProtectionType {
        switch self {
        case .complete: .complete
        case .completeUnlessOpen: .completeUnlessOpen
        case .completeUntilFirstUserAuthentication: .completeUntilFirstUserAuthentication
        case .unprotected: .none
        }
    }
    #endif
}
