import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of one SSH front, in its temporary folder: keys, `authorized_keys`, the passwd
/// file for nss_wrapper, and the server's and each client's configuration.
struct SSHFrontFiles {
    let folder: TemporaryDirectory
    let users: [String]
    let loginUser: String
    let serverConfig: String
    let serverLog: String
    let strangerConfig: String
    /// What sshd runs with: nss_wrapper's variables where it is used.
    let serverEnvironment: [String: String]
    private let hostPublicKey: String

    /// Makes the keys, the passwd file and `authorized_keys`, whose forced command for each
    /// user's key is `gitbay-fake-server ssh-command --port <fakePort> --user <user>`.
    init(folder: TemporaryDirectory, tools: SSHTools, users: [String], fakePort: UInt16) throws {
        self.folder = folder
        self.users = users
        serverConfig = folder.file("sshd_config")
        serverLog = folder.file("sshd.log")
        strangerConfig = folder.file("ssh_config_stranger")
        let scratch = folder.file("keygen.out")
        try FileManager.default.createDirectory(atPath: folder.file("home"), withIntermediateDirectories: true)
        hostPublicKey = try tools.makeKey(folder.file("host_key"), comment: "gitbay-test-front", scratch: scratch)
        let forwarder = try Self.forwarder()
        var authorized = ""
        for user in users {
            let key = try tools.makeKey(folder.file("key_\(user)"), comment: user, scratch: scratch)
            let command = "'\(forwarder)' ssh-command --port \(fakePort) --user \(user)"
            authorized += "restrict,command=\"\(command)\" \(key)\n"
        }
        _ = try tools.makeKey(folder.file("key_stranger"), comment: "stranger", scratch: scratch)
        try authorized.write(toFile: folder.file("authorized_keys"), atomically: true, encoding: .utf8)

        var environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"]
        if let wrapper = tools.nssWrapper {
            loginUser = "git"
            try Self.passwdFiles(in: folder)
            environment["LD_PRELOAD"] = wrapper
            environment["NSS_WRAPPER_PASSWD"] = folder.file("passwd")
            environment["NSS_WRAPPER_GROUP"] = folder.file("group")
        } else {
            loginUser = String(cString: getpwuid(getuid()).pointee.pw_name)
        }
        serverEnvironment = environment
        if getuid() == 0 && !FileManager.default.fileExists(atPath: "/run/sshd") {
            try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
    }

    /// `gitbay-fake-server` beside this file's package, built by `swift build --build-tests`.
    private static func forwarder() throws -> String {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let path = root.appendingPathComponent(".build/debug/gitbay-fake-server").path
        guard FileManager.default.isExecutableFile(atPath: path), !path.contains("'"), !path.contains("\"") else {
            throw SSHFront.StartFailed(description: "gitbay-fake-server is not at \(path): build it with `swift build --build-tests`")
        }
        return path
    }

    /// The passwd and group files nss_wrapper gives sshd: `git` is the account running the
    /// tests under another name, with `/bin/sh` to run the forced command; sshd's own
    /// privilege separation account is copied as the machine has it.
    private static func passwdFiles(in folder: TemporaryDirectory) throws {
        let uid = getuid(), gid = getgid()
        var passwd = "git:x:\(uid):\(gid):gitbay:\(folder.file("home")):/bin/sh\n"
        var groups = "git:x:\(gid):\n"
        if let sshd = getpwnam("sshd") {
            passwd += "sshd:x:\(sshd.pointee.pw_uid):\(sshd.pointee.pw_gid)::/run/sshd:/usr/sbin/nologin\n"
            if sshd.pointee.pw_gid != gid { groups += "sshd:x:\(sshd.pointee.pw_gid):\n" }
        }
        try passwd.write(toFile: folder.file("passwd"), atomically: true, encoding: .utf8)
        try groups.write(toFile: folder.file("group"), atomically: true, encoding: .utf8)
    }

    /// The server's configuration for `port` and every client's, with the host key trusted.
    func writeConfigurations(port: UInt16) throws {
        let server = """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(folder.file("host_key"))
            PidFile none
            AuthorizedKeysFile \(folder.file("authorized_keys"))
            StrictModes no
            UsePAM no
            PubkeyAuthentication yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PermitRootLogin prohibit-password
            AllowTcpForwarding no
            AllowAgentForwarding no
            X11Forwarding no
            PermitTTY no
            PrintMotd no
            MaxStartups 64
            LogLevel INFO
            Subsystem sftp none

            """
        try server.write(toFile: serverConfig, atomically: true, encoding: .utf8)
        let host = hostPublicKey.split(separator: " ").prefix(2).joined(separator: " ")
        try "gitbay-test-front \(host)\n".write(toFile: folder.file("known_hosts"), atomically: true, encoding: .utf8)
        for (name, path) in users.map({ ($0, folder.file("ssh_config_\($0)")) }) + [("stranger", strangerConfig)] {
            try clientConfiguration(port: port, key: folder.file("key_\(name)")).write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o600)
        }
    }

    /// One client's configuration: this server only, this key only, no prompt of any kind.
    private func clientConfiguration(port: UInt16, key: String) -> String {
        """
        Host *
          Port \(port)
          IdentityFile \(key)
          IdentitiesOnly yes
          IdentityAgent none
          HostKeyAlias gitbay-test-front
          UserKnownHostsFile \(folder.file("known_hosts"))
          GlobalKnownHostsFile /dev/null
          StrictHostKeyChecking yes
          CheckHostIP no
          UpdateHostKeys no
          BatchMode yes
          PasswordAuthentication no
          KbdInteractiveAuthentication no
          ConnectTimeout 60
          ControlMaster no
          ControlPath none
          LogLevel ERROR

        """
    }
}
