import GitbaySupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CommandRunner {
    /// What `login --ssh` says when the ssh program cannot be run, and its exit code.
    static func programFailure(_ failure: SSHProgram.Failure) -> CommandFailure {
        switch failure {
        case .malformedVariable(let problem):
            return CommandFailure(
                "\(SSHProgram.variable) cannot be read as a command line: \(problem); nothing was stored. Fix it, or unset it to run ssh from PATH.",
                exitCode: .dataError)
        case .notFound(let program, fromVariable: true):
            return CommandFailure(
                "\(SSHProgram.variable) names \(program), which is not an executable file (nor one on PATH); nothing was stored. Fix \(SSHProgram.variable), or unset it to run ssh from PATH.",
                exitCode: .unavailable)
        case .notFound(let program, fromVariable: false):
            return CommandFailure(
                "there is no \(program) program on PATH to mint a token with; nothing was stored. Install OpenSSH's client (openssh-client), or name the program with \(SSHProgram.variable), e.g. \(SSHProgram.variable)='/usr/local/bin/ssh -i ~/.ssh/gitbay_key'.",
                exitCode: .unavailable)
        }
    }

    /// What `login --ssh` says when no token was minted, and its exit code: `unavailable` when
    /// the server could not be reached or did not answer as gitbay, `denied` when it refused
    /// the key or the command, `dataError` when it refused what was asked (a name in use).
    static func mintFailure(_ failure: SSHTokenMint.Failure, _ minting: SSHTokenMint, instance: InstanceURL) -> CommandFailure {
        let destination = minting.destination.description
        let check = "Check that `\(minting.destination.command(["whoami"]))` works."
        // Raw here: the message is escaped once, where it is printed.
        func said(_ text: String) -> String { text.isEmpty ? "" : " (ssh said: \(text))" }
        switch failure {
        case .cannotStart(let program, let code):
            return CommandFailure(
                "could not start \(program) to mint a token: \(String(cString: strerror(code))); nothing was stored. Install OpenSSH's client, or name the program with \(SSHProgram.variable).",
                exitCode: .unavailable)
        case .timedOut(let limit, let text):
            return CommandFailure(
                "ssh to \(destination) did not finish within \(limit.shortDescription) and was stopped\(said(text)); nothing was stored. Check that the host is reachable on its SSH port (another port: --ssh user@host:port). A prompt for a key's passphrase or a new host key waits too: load the key into ssh-agent, or connect once with `\(minting.destination.command([]))` to accept the host key.",
                exitCode: .unavailable)
        case .keyRefused(let text):
            return CommandFailure(
                "\(destination) refused the SSH key\(said(text)); nothing was stored. Add your public key to your account's SSH keys on \(instance), or name the key to use with \(SSHProgram.variable)='ssh -i ~/.ssh/KEY'. \(check)",
                exitCode: .denied)
        case .hostKeyRefused(let text):
            return CommandFailure(
                "ssh could not verify the host key of \(destination)\(said(text)); nothing was stored. Make sure the host is the instance's, then accept or update its key in ~/.ssh/known_hosts. \(check)",
                exitCode: .unavailable)
        case .unreachable(let text):
            return CommandFailure(
                "could not reach \(destination) over SSH\(said(text)); nothing was stored. Check the host and the port (another: --ssh user@host:port). \(check)",
                exitCode: .unavailable)
        case .refused(let exitCode, let message):
            return refusedMint(exitCode: exitCode, message: message, minting)
        case .notGitbay(let status, let text):
            return CommandFailure(
                "\(destination) did not answer `token create` as gitbay's SSH access does (ssh exited with status \(status))\(said(text)); nothing was stored. Is it the instance's SSH access? gitbay serves it as git@ and the instance's host.",
                exitCode: .unavailable)
        case .protocolVersion(let version):
            return CommandFailure(
                "\(destination) speaks protocol version \(version), this gitbay-sync speaks 1; nothing was stored. Update gitbay-sync.",
                exitCode: .unavailable)
        case .interrupted:
            return CommandFailure("the login was interrupted by the user while ssh ran; nothing was stored or changed.", exitCode: .unavailable)
        case .outputTooLong:
            return CommandFailure(
                "\(destination) answered `token create` with more than any answer holds, so it was stopped; nothing was stored. Is it the instance's SSH access?",
                exitCode: .unavailable)
        }
    }

    /// The server ran `token create` and refused it: its `exit_code` says how.
    private static func refusedMint(exitCode: Int?, message: String, _ minting: SSHTokenMint) -> CommandFailure {
        let head = "\(minting.destination) refused `token create --name \(minting.name)`"
        let answer = "(exit_code \(exitCode.map(String.init) ?? "none"): \(message))"
        switch exitCode {
        case 4:
            return CommandFailure(
                "\(head) \(answer); nothing was stored. The account may be disabled or unverified, or past its write limit (then try again in a minute).",
                exitCode: .denied)
        case 1:
            return CommandFailure(
                "\(head) \(answer); nothing was stored. If the account has a token of that name already (one named with --token-name before, say), revoke it with `\(minting.destination.command(["token", "revoke", minting.name]))` and sign in again, or give the new one another name with --token-name.",
                exitCode: .dataError)
        case 2:
            return CommandFailure(
                "\(head) \(answer); nothing was stored. The server did not take the name or the lifetime: give others with --token-name or --ttl.",
                exitCode: .dataError)
        default:
            return CommandFailure("\(head) \(answer); nothing was stored. Try again later.", exitCode: .unavailable)
        }
    }
}
