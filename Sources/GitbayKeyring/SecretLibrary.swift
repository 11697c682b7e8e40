internal import CSecret
import Synchronization

/// libsecret, opened at run time rather than linked (like libcurl in GitbayAPI), so that
/// gitbay-sync runs where it is not installed and a command that never needs the keyring
/// never loads it or the GLib stack it brings.
///
/// `@unchecked Sendable` invariant: `api` is filled once, before the library is published
/// in `opened`, and never written again; libsecret's functions may be called from any thread.
final class SecretLibrary: @unchecked Sendable {
    /// libsecret's (and GLib's) entry points.
    let api: UnsafePointer<csecret_api>
    /// The SecretService subclass that uses the D-Bus connection it is given (service_type.h).
    let serviceType: Int

    private init(api: UnsafePointer<csecret_api>, serviceType: Int) {
        self.api = api
        self.serviceType = serviceType
    }

    /// The library file opened unless another is named.
    static let systemPath = "libsecret-1.so.0"

    /// Each path opened so far and what came of it: a library is opened once per process.
    private static let opened = Mutex<[String: Result<SecretLibrary, KeyringUnavailable>]>([:])

    /// The libsecret at `path` (a name alone is searched for as the loader does), opened on
    /// first use; or why it cannot be used.
    static func library(at path: String) -> Result<SecretLibrary, KeyringUnavailable> {
        opened.withLock { opened in
            if let known = opened[path] { return known }
            let api = UnsafeMutablePointer<csecret_api>.allocate(capacity: 1)
            api.initialize(to: csecret_api())
            let result: Result<SecretLibrary, KeyringUnavailable>
            if let reason = csecret_open(path, api) {
                result = .failure(.libraryMissing(path: path, detail: KeyringUnavailable.said(String(cString: reason))))
                api.deallocate()
            } else {
                let serviceType = csecret_service_type(api)
                result =
                    serviceType == 0
                    ? .failure(.libraryMissing(path: path, detail: "its SecretService type could not be extended"))
                    : .success(SecretLibrary(api: UnsafePointer(api), serviceType: serviceType))
            }
            opened[path] = result
            return result
        }
    }
}

/// One operation's GCancellable, cancelled at the deadline unless the operation finished
/// first.
///
/// `@unchecked Sendable` invariant: `handle` is a GCancellable (thread-safe in GLib) that
/// stays referenced until `finish()`; `cancel()` and `finish()` take the same lock, and
/// `cancel()` after `finish()` does nothing, so the handle is never used once released.
final class OperationCancellation: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    private let library: SecretLibrary
    private let state = Mutex<(finished: Bool, cancelled: Bool)>((false, false))

    init(library: SecretLibrary) {
        self.library = library
        guard let handle = library.api.pointee.cancellable_new() else { preconditionFailure("g_cancellable_new returned nothing") }
        self.handle = handle
    }

    /// Asks the operation to stop: libsecret's calls then end with G_IO_ERROR_CANCELLED.
    func cancel() {
        state.withLock { state in
            guard !state.finished else { return }
            state.cancelled = true
            library.api.pointee.cancellable_cancel(handle)
        }
    }

    /// Whether `cancel()` reached the operation.
    var wasCancelled: Bool { state.withLock { $0.cancelled } }

    /// Releases the cancellable; the operation no longer uses it.
    func finish() {
        state.withLock { state in
            guard !state.finished else { return }
            state.finished = true
            library.api.pointee.object_unref(handle)
        }
    }
}
