/// Which D-Bus session bus an environment names, found as GDBus finds it, from the
/// environment given rather than the process's, so that two keyrings in one process (two
/// tests, two users' sessions) each reach their own.
package enum SessionBus {
    /// `DBUS_SESSION_BUS_ADDRESS` when it is set (and not `disabled:`), else
    /// `unix:path=$XDG_RUNTIME_DIR/bus` when that socket is there (systemd's user bus).
    /// X11 autolaunch is never tried: it would start a bus of its own.
    package static func address(
        in environment: [String: String], exists: (String) -> Bool
    ) -> Result<String, KeyringUnavailable> {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty {
            guard !address.hasPrefix("disabled:") else {
                return .failure(.noSessionBus(detail: "DBUS_SESSION_BUS_ADDRESS is disabled:"))
            }
            return .success(address)
        }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"), exists(runtime + "/bus") {
            return .success("unix:path=" + escaped(runtime + "/bus"))
        }
        return .failure(.noSessionBus(detail: "DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus"))
    }

    /// A value in a D-Bus address: bytes outside `[-0-9A-Za-z_/.\*]` as `%XX`.
    static func escaped(_ value: String) -> String {
        var text = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "*"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16)
                text += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return text
    }
}
