import GitbayState
import GitbaySupport

/// How `status` and `doctor` say that two names were found to be one server.
enum OneServerText {
    static func sentence(_ proof: SameServerRecord) -> String {
        "\(proof.instance) and \(proof.other) are one server (row \(proof.deviceID) moved between their accounts at this device's add, \(Timestamp.format(proof.provenAt))): one account of them holds this device's token, the others are shadowed"
    }
}
