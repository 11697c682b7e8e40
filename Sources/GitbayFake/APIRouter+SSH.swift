import Foundation

/// `POST /_fake/ssh`: a command run over SSH as a key's user, for the SSH front of the tests
/// (sshd's forced command, `gitbay-fake-server ssh-command`, forwards to it).
///
/// Body: `{"user": "alice", "argv": [...], "stdin": "..."}` (`stdin` optional). Answer, 200:
/// `{"exit_code": N, "stdout": "...", "stderr": "..."}`, what the command prints and the exit
/// code ssh then exits with. With `--json` anywhere in argv, stdout is the envelope and a
/// newline, stderr empty; without it, stdout is the `data` as JSON and a newline and stderr
/// is `error: <message>` (gitbay's human output, which no client parses, simplified).
///
/// Over SSH there is no bearer and no API limiter: the key's user runs the command with
/// full scope, and writes count toward the dispatcher's write limit shared with the API.
/// Like the other control routes it is never recorded in `requests()`, delayed or faulted;
/// `FakeGitbayServer.sshCommands()` lists what it ran.
extension APIRouter {
    private struct SSHCall: Decodable {
        let user: String
        let argv: [String]
        let stdin: String?
    }

    static func sshReply(to request: HTTPRequest, in state: inout FakeState) -> HTTPResponse {
        let json = ("Content-Type", "application/json")
        guard let call = try? JSONDecoder().decode(SSHCall.self, from: Data(request.body)), !call.user.isEmpty else {
            let body = JSONValue.object([("error", .string("expected {\"user\": \"...\", \"argv\": [...], \"stdin\": \"...\"}"))])
            return HTTPResponse(status: 400, headers: [json], body: Array(body.serialized.utf8))
        }
        let argv = call.argv.filter { $0 != "--json" }
        let outcome: CommandOutcome
        if argv.isEmpty {
            outcome = .failure(exitCode: 2, "no command: name one after the host, as in `ssh git@HOST -- whoami`")
        } else {
            state.addUser(call.user)
            let caller = FakeState.Caller(user: call.user, scope: .full, apiToken: nil)
            outcome = state.dispatch(argv: argv, stdin: call.stdin, caller: caller, instant: .now)
        }
        state.sshLog.append(FakeSSHCommand(user: call.user, argv: call.argv, stdin: call.stdin, exitCode: outcome.exitCode))

        let wantsEnvelope = call.argv.contains("--json")
        let stdout =
            wantsEnvelope
            ? String(decoding: Envelope.body(for: outcome), as: UTF8.self) + "\n" : outcome.data.map { $0.serialized + "\n" } ?? ""
        let stderr = wantsEnvelope ? "" : outcome.error.map { "error: \($0)\n" } ?? ""
        let body = JSONValue.object([("exit_code", .number(outcome.exitCode)), ("stdout", .string(stdout)), ("stderr", .string(stderr))])
        return HTTPResponse(status: 200, headers: [json], body: Array(body.serialized.utf8))
    }
}
