// Compiled, never run (see APISurface+Engine.swift). `URLSessionConfiguration` is Foundation's
// type, not the kit's: naming it takes Foundation's import, as in any app file that makes one.
import Foundation
import GitbaySyncKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension APISurface {
    /// The transports an app may hand the engine: URLSession on sessions of the transport's
    /// own, or on a copy of the app's configuration (its URLProtocol stubs, say), or its own.
    static func transports(appConfiguration: URLSessionConfiguration) -> [any HTTPTransport] {
        [URLSessionTransport(), URLSessionTransport(configuration: appConfiguration), AppTransport()]
    }
}
