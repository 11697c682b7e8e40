import Foundation

/// Where the OpenSSH programs the SSH front runs are on this machine.
struct SSHTools {
    let sshd: String
    let ssh: String
    let keygen: String
    /// nss_wrapper's library, which lets sshd log in an account written in a private passwd
    /// file; nil where it is not installed (or not on Linux).
    let nssWrapper: String?

    static func located() throws -> SSHTools {
        func find(_ name: String, in folders: [String]) -> String? {
            folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        let sbin = ["/usr/sbin", "/usr/local/sbin", "/opt/homebrew/sbin", "/sbin"]
        let bin = ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/bin"]
        guard let sshd = find("sshd", in: sbin), let ssh = find("ssh", in: bin), let keygen = find("ssh-keygen", in: bin) else {
            throw SSHFront.StartFailed(
                description: "the SSH front needs sshd, ssh and ssh-keygen (Debian's openssh-server and openssh-client): run scripts/install-deps")
        }
        return SSHTools(sshd: sshd, ssh: ssh, keygen: keygen, nssWrapper: nssWrapperLibrary())
    }

    /// `libnss_wrapper.so` in one of the library folders (Debian puts it in the multiarch one).
    private static func nssWrapperLibrary() -> String? {
        #if os(Linux)
        let multiarch = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []).filter { $0.hasSuffix("-linux-gnu") }
        let folders = multiarch.map { "/usr/lib/" + $0 } + ["/usr/lib64", "/usr/lib", "/usr/local/lib"]
        return folders.map { $0 + "/libnss_wrapper.so" }.first { FileManager.default.fileExists(atPath: $0) }
        #else
        return nil
        #endif
    }

    /// Makes an ed25519 key pair without a passphrase at `path` (and `path.pub`); returns the
    /// public key line.
    func makeKey(_ path: String, comment: String, scratch: String) throws -> String {
        let (ending, output) = try ChildProcess.run(
            keygen, ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path], environment: ["PATH": "/usr/bin:/bin"],
            output: scratch)
        guard ending.code == 0, let line = try? String(contentsOfFile: path + ".pub", encoding: .utf8) else {
            throw SSHFront.StartFailed(description: "ssh-keygen failed: \(output)")
        }
        return line.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
