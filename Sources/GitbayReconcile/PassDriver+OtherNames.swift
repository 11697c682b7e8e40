import GitbayAPI
import GitbayState
import GitbaySupport

/// The checks of other names of an account's server (`SameServerCheck`): the store only,
/// never another account's server.
extension PassDriver {
    /// The accounts under other names holding a record of the row an add made: each lists
    /// again through its own pass. The store only; a store that cannot be read names none
    /// (their next run's list settles it).
    @inline(never)
    func checkOtherNames(_ carrier: Carrier) async -> AccountPass.Event {
        guard case .checkOtherNames(let id) = carrier.step else { preconditionFailure("not a check") }
        let pass = carrier.pass
        guard let token = pass.device.tokenIdentity, let fingerprint = token.fingerprint,
            let holding = try? await store.registrations(holdingFingerprint: fingerprint),
            holding.keys.contains(where: { $0 != pass.account.id }),
            let (accounts, names) = try? await otherNames()
        else { return .otherNamesChecked(suspects: []) }
        let added = holding[pass.account.id]?.first { $0.deviceID == id }?.added
        let suspects = SameServerCheck.suspects(
            after: pass.account, added: id, at: added, token: token, holding: holding, accounts: accounts, names: names)
        if !suspects.isEmpty { carrier.logger.info("instance.other-names-list-again", ["device.id": String(id)]) }
        return .otherNamesChecked(suspects: suspects)
    }

    /// What a full list says of the records accounts under other names hold of this
    /// account's tokens (`SameServerCheck.verdicts`), recorded. The store only.
    @inline(never)
    func checkNames(_ carrier: Carrier) async -> AccountPass.Event {
        guard case .checkNames(let rows, let since) = carrier.step else { preconditionFailure("not a check") }
        let (account, records) = (carrier.pass.account, carrier.pass.records)
        do {
            var holding: [Int64: [RegistrationRecord]] = [:]
            for fingerprint in Set(records.compactMap(\.token.fingerprint)).sorted() {
                for (id, theirs) in try await store.registrations(holdingFingerprint: fingerprint) where id != account.id {
                    holding[id, default: []] += theirs
                }
            }
            guard !holding.isEmpty else { return .namesChecked(proven: false) }
            let (accounts, names) = try await otherNames()
            let now = options.now()
            let verdicts = SameServerCheck.verdicts(
                of: account, records: records, rows: rows, holding: holding, accounts: accounts, names: names, provingSince: since, now: now)
            for other in verdicts.distinct {
                try await store.recordDistinctServers(account.instance, other, seenAt: now)
                logger.info("instance.distinct-servers", ["instance": account.instance.description, "instance.other": other.description])
            }
            for proof in verdicts.proofs {
                try await store.recordSameServer(proof)
                logger.info(
                    "instance.same-server",
                    ["instance": proof.instance.description, "instance.other": proof.other.description, "device.id": String(proof.deviceID)])
                proven.note(proof)
            }
            return .namesChecked(proven: !verdicts.proofs.isEmpty)
        } catch {
            return .failed(error)
        }
    }

    /// Every account by id, and which URLs are known to name one server or two.
    private func otherNames() async throws -> ([Int64: AccountRecord], ServerNames) {
        let accounts = Dictionary(try await store.accounts().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return (accounts, try await store.serverNames())
    }
}
