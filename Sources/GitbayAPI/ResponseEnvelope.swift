#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fields every gitbay answer carries around its data. Unknown fields are ignored.
struct ResponseEnvelope: Decodable, Sendable, Equatable {
    let protocolVersion: Int
    let error: String?
    /// Absent on errors raised before dispatch (401, a malformed body, 429).
    let exitCode: Int?

    private enum CodingKeys: String, CodingKey {
        case protocolVersion = "protocol_version"
        case error
        case exitCode = "exit_code"
    }
}

/// The `data` member of a successful answer, decoded as `Payload`; nil when omitted.
struct DataEnvelope<Payload: Decodable>: Decodable {
    let data: Payload?
}
