internal import CSecret

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One keyring operation: the library, the bus, a session on it, the deadline, and what
/// libsecret's failures mean.
extension SecretServiceKeyring {
    /// What an operation gets: the open session, and the function that turns a failed
    /// result into a reason (it knows whether the deadline cancelled the operation).
    typealias Operation<Value> =
        @Sendable (UnsafeMutablePointer<csecret_session>, (csecret_result) -> KeyringUnavailable) -> Result<Value, KeyringUnavailable>

    /// Opens the library and a session on the bus of this keyring's environment, runs
    /// `operation` in it on the queue, and closes the session, all within `timeout`. An
    /// environment that names no bus fails before the library is opened: loading libsecret and
    /// the GLib stack costs more than a steady run of one account, on every run of a headless
    /// machine whose tokens wait for a keyring.
    func perform<Value: Sendable>(_ operation: @escaping Operation<Value>) async throws(KeyringUnavailable) -> Value {
        let address = try SessionBus.address(in: environment, exists: { FileManager.default.fileExists(atPath: $0) }).get()
        let library = try SecretLibrary.library(at: libraryPath).get()
        let cancellation = OperationCancellation(library: library)
        let timeout = self.timeout
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let work: @Sendable () -> Result<Value, KeyringUnavailable> = {
            defer { cancellation.finish() }
            let classify = { (result: csecret_result) in
                Self.reason(for: result, cancelled: cancellation.wasCancelled, timeout: timeout)
            }
            var session = csecret_session()
            var opened = address.withCString {
                csecret_session_open(library.api, library.serviceType, $0, max(milliseconds, 1), cancellation.handle, &session)
            }
            defer { csecret_result_free(&opened) }
            guard opened.status == CSECRET_OK else { return .failure(classify(opened)) }
            defer { csecret_session_close(&session) }
            return operation(&session, classify)
        }
        return try await queue.run(timeout: timeout, cancel: { cancellation.cancel() }, work: work)
    }

    /// Why a result that is not OK is one: from its status, then the D-Bus error's name, then
    /// the GError's domain and code.
    static func reason(for result: csecret_result, cancelled: Bool, timeout: Duration) -> KeyringUnavailable {
        let detail = result.message.map { KeyringUnavailable.said(String(cString: $0)) } ?? "no detail"
        let domain = result.domain.map { String(cString: $0) }
        let remote = result.remote_name.map { String(cString: $0) }
        // G_IO_ERROR_CANCELLED (19) after our deadline, G_IO_ERROR_TIMED_OUT (24), D-Bus's NoReply.
        let timedOut =
            (domain == "g-io-error-quark" && (result.code == 24 || (result.code == 19 && cancelled)))
            || remote == "org.freedesktop.DBus.Error.NoReply" || remote == "org.freedesktop.DBus.Error.Timeout"
        if timedOut { return .timedOut(timeout) }
        switch result.status {
        case CSECRET_LOCKED: return .locked
        case CSECRET_NO_KEYRING: return .noKeyring
        case CSECRET_CONNECT_FAILED: return .noSessionBus(detail: detail)
        default: break
        }
        switch remote {
        case "org.freedesktop.Secret.Error.IsLocked": return .locked
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return .noService(detail: detail)
        case let name? where name.hasPrefix("org.freedesktop.DBus.Error.Spawn."):
            return .noService(detail: detail)
        default: break
        }
        // SECRET_ERROR_IS_LOCKED, once libsecret has mapped the D-Bus error to its own domain.
        if domain == "secret-error" && result.code == 2 { return .locked }
        return .failed(detail: detail)
    }
}
