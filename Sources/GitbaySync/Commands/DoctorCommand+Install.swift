import GitbayState
import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CommandRunner {
    /// The names found to be one server, one passing check each: what `run` goes by.
    func serverNameChecks(_ store: StateStore) async -> [DoctorCheck] {
        let proofs = (try? await store.serverNames().proofs) ?? []
        return proofs.map { .pass("instance.names", $0.instance.description, OneServerText.sentence($0)) }
    }

    /// The install and the machine it is bound to: whether a copy of the database on another
    /// machine would be told apart, and whether this one came from another machine.
    func installCheck(_ store: StateStore) async -> DoctorCheck {
        let files = MachineIdentity.linuxFiles.joined(separator: ", ")
        guard let device = try? await store.storedDevice() else {
            return .pass("install.machine", "device", "no install yet: the first command that needs one makes it")
        }
        guard store.machine != nil else {
            return .warn(
                "install.machine", "device",
                "no machine identity can be read (\(files)), so a copy of this database on another machine could not be told apart and would take this machine's rows for its own",
                fix: "give the machine an id (`systemd-machine-id-setup`), and do not copy the state folder to another machine")
        }
        let marker = "install \(device.installMarker)"
        guard let movedAt = device.movedAt else { return .pass("install.machine", "device", "\(marker), bound to this machine") }
        if device.awaitsTokenAfterMove {
            return .warn(
                "install.machine", "device",
                "this database came from another machine (\(Timestamp.format(movedAt))): here it is a new install, \(marker), and the other machine's rows are left alone",
                fix: "set this machine's device token with `gitbay-sync device set-token`")
        }
        return .pass(
            "install.machine", "device", "\(marker), bound to this machine since \(Timestamp.format(movedAt)), when the database came from another")
    }
}
