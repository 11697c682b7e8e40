import GitbayAPI
import GitbayState
import GitbaySupport

extension PassPool {
    /// Carries out `step` of the account's pass: a request with a completion, a store step as
    /// a task of the round, the end in place.
    func carryOut(_ step: AccountPass.Step, of index: Int, _ group: inout TaskGroup<Void>) {
        guard let lane = inFlight[index] else { preconditionFailure("a step for no account in flight") }
        let sink = arrivals
        switch step {
        case .list, .add, .remove:
            guard case .success(let client) = lane.client else {
                if case .failure(let error) = lane.client { handle(.noClient(AccountFailure(error)), of: index, &group) }
                return
            }
            guard !stopped else {
                handle(.failed(.server(GitbayError(kind: .transport(.cancelled), account: client.accountName, command: []))), of: index, &group)
                return
            }
            lane.transfer = send(step, of: lane, with: client, index: index, &group)
        case .finish(var result):
            result.outcome.requests = lane.spent + ((try? lane.client.get())?.requestCount ?? 0)
            if result.outcome.action == .failed, result.steady == nil {
                lane.logger.warning(
                    "account.failed", ["account.name": result.outcome.account, "account.condition": result.outcome.condition.rawValue])
            }
            finish(result, of: index, unsettled: lane.addUnsettled ? lane.pass : nil, &group)
        case .readAfresh:
            lane.logger.info("account.superseded", ["account.name": lane.pass.account.name])
            let (store, id) = (store, lane.pass.account.id)
            group.addTask {
                let (event, fresh) = await store.readAfresh(id)
                sink.yield(.fresh(index, event, fresh))
            }
        default:
            if case .record = step { lane.recording = true }
            let (store, pass, token, logger) = (store, lane.pass, lane.token, lane.logger)
            group.addTask { sink.yield(.event(index, await store.carryOut(step, of: pass, token: token, logger: logger))) }
        }
    }

    /// Starts the request `step` asks for; its answer comes back as an event.
    private func send(
        _ step: AccountPass.Step, of lane: InFlight, with client: GitbayClient, index: Int, _ group: inout TaskGroup<Void>
    ) -> TransportTransfer {
        let sink = arrivals
        switch step {
        case .list(let tag):
            return client.startListingDevices(ifNoneMatch: tag) { result in
                switch result {
                case .success(.list(let rows, let etag)): sink.yield(.event(index, .listed(rows, etag: etag)))
                case .success(.notModified): sink.yield(.event(index, .notModified))
                case .failure(let error): sink.yield(.event(index, .failed(.server(error))))
                }
            }
        case .add:
            let pass = lane.pass
            guard let token = pass.device.token else { preconditionFailure("a pass adds only with a device token") }
            return client.startAddingDevice(token: token, label: pass.device.serverLabel) { result in
                switch result {
                case .success(let answer): sink.yield(.event(index, .added(id: answer.id)))
                // It may have moved a row recorded under another name of this server.
                case .failure(let error): sink.yield(.addFailed(index, pass, error))
                }
            }
        case .remove(let id, let reason):
            lane.logger.info("registration.remove", ["account.name": lane.pass.account.name, "device.id": String(id), "reason": reason.rawValue])
            return client.startRemovingDevice(id: id) { result in
                switch result {
                case .success: sink.yield(.event(index, .removed))
                case .failure(let error): sink.yield(.event(index, .failed(.server(error))))
                }
            }
        default:
            preconditionFailure("\(step) is not a request")
        }
    }

    /// Records the account's result and starts what now fits. An add answered without its id
    /// whose row the pass did not record (`unsettled`) first leaves the token's rows under
    /// other names in doubt; an account being signed out has its removal finished first, and
    /// one whose token is due is renewed first, its result held.
    func finish(_ result: Reconciler.Reconciled, of index: Int, unsettled: AccountPass?, _ group: inout TaskGroup<Void>) {
        if let unsettled {
            let (store, sink) = (store, arrivals)
            group.addTask {
                await store.doubtOtherNames(after: unsettled)
                sink.yield(.finished(index, result))
            }
            return
        }
        let (id, instance) = (accounts[index].0.id, accounts[index].0.instance)
        if inFlight[index]?.held == nil, let removal = removals?.removing[id] {
            inFlight[index] = nil
            remove(removal, after: result, of: index, &group)
            return
        }
        if let lane = inFlight[index], lane.held == nil, let renewing, renewing.accounts.contains(id) {
            lane.held = result
            renew(result.outcome, token: lane.token, marker: renewing.marker, of: index, &group)
            return
        }
        close(result, of: index, instance: instance, &group)
    }

    /// The account is done: its result recorded, its place given to the next.
    func close(_ result: Reconciler.Reconciled, of index: Int, instance: InstanceURL, _ group: inout TaskGroup<Void>) {
        (inFlight[index], removing[index]) = (nil, nil)
        results.append(result)
        progress?(.finished(result.outcome))
        queue.finished(instance)
        startWhatFits(&group)
    }
}
