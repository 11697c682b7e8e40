import GitbaySupport

/// The device commands, each started with a completion (a run's accounts are carried out so,
/// with no task waiting on their requests) or awaited.
extension GitbayClient {
    /// `notifications device list` over `GET /api/v1/read`; `.notModified` when `etag` still
    /// matches.
    package func listDevices(ifNoneMatch etag: String?) async throws(GitbayError) -> DeviceList {
        try await awaiting { startListingDevices(ifNoneMatch: etag, completion: $0) }
    }

    /// `notifications device add --label <label>` with the push token on stdin. The label is
    /// always sent: re-adding without one resets it. Safe to retry: the server upserts on the token.
    package func addDevice(token: Secret, label: String) async throws(GitbayError) -> DeviceAddResult {
        try await awaiting { startAddingDevice(token: token, label: label, completion: $0) }
    }

    /// `notifications device remove <id>`; a 404 (missing, or another user's) means already gone.
    package func removeDevice(id: Int) async throws(GitbayError) -> RemoveOutcome {
        try await awaiting { startRemovingDevice(id: id, completion: $0) }
    }

    /// `listDevices`, started: `completion` gets its answer.
    package func startListingDevices(
        ifNoneMatch etag: String?, completion: @escaping @Sendable (Result<DeviceList, GitbayError>) -> Void
    ) -> TransportTransfer {
        let words = Self.listWords
        return start(.read(argv: words, ifNoneMatch: etag), command: words) { [self] reply in
            completion(Result { () throws(GitbayError) in try deviceList(reply.get(), ifNoneMatch: etag) })
        }
    }

    /// `addDevice`, started: `completion` gets its answer.
    package func startAddingDevice(
        token: Secret, label: String, completion: @escaping @Sendable (Result<DeviceAddResult, GitbayError>) -> Void
    ) -> TransportTransfer {
        let words = ["notifications", "device", "add"]
        noteSecret(token)
        return start(.write(argv: words + ["--label", label], stdin: token), command: words) { [self] reply in
            completion(
                Result { () throws(GitbayError) in
                    let response = try answer(reply.get(), command: words)
                    // v1.32.0 answers without an id; a server omitting empty data gives none either.
                    return try decode(DeviceAddResult.self, from: response, command: words) ?? DeviceAddResult(id: nil)
                })
        }
    }

    /// `removeDevice`, started: `completion` gets its answer.
    package func startRemovingDevice(id: Int, completion: @escaping @Sendable (Result<RemoveOutcome, GitbayError>) -> Void) -> TransportTransfer {
        let words = ["notifications", "device", "remove"]
        return start(.write(argv: words + [String(id)], stdin: nil), command: words) { [self] reply in
            completion(
                Result { () throws(GitbayError) in
                    do throws(GitbayError) {
                        _ = try answer(reply.get(), command: words)
                        return .removed
                    } catch  where error.kind == .notFound {
                        return .alreadyGone
                    }
                })
        }
    }

    /// What a list's reply says.
    private func deviceList(_ reply: Reply, ifNoneMatch etag: String?) throws(GitbayError) -> DeviceList {
        let words = Self.listWords
        switch reply {
        case .notModified(let status):
            guard etag != nil else {
                // A 304 to an unconditional request is not an answer this client can use.
                throw GitbayError(kind: .malformed, account: accountName, command: words, httpStatus: status)
            }
            return .notModified
        case .answer(let response):
            let devices = try decode([ServerDevice].self, from: response, command: words) ?? []
            return .list(devices, etag: ServerAnswer.entityTag(response.headers["etag"]))
        }
    }

    /// The words of `device list`.
    static let listWords = ["notifications", "device", "list"]
}
