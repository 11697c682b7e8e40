extension RegistrationRecord {
    /// True when `later`, another account's record, may name this row moved to it: the same
    /// id and token, the same `added` where both are known, recorded after this one. Under two
    /// URLs of one server an add by the other account moves the row; under two servers it is
    /// a coincidence of ids, which a list of this row settles.
    package func mayHaveMoved(to later: RegistrationRecord) -> Bool {
        later.accountID != accountID && later.deviceID == deviceID && later.token.isSameToken(as: token) && later.madeAt > madeAt
            && (added == nil || later.added == nil || added == later.added)
    }
}
