import Foundation
import GitbayFake
import Testing

@testable import GitbayAPI
@testable import GitbaySupport
@testable import GitbaySync

/// The pure parts of `login --ssh`: `$GITBAY_SYNC_SSH` read as words, the destination, the
/// lifetime, the token's name, and what ssh's ending means.
@Suite("The parts of login --ssh")
struct SSHLoginPartsTests {
    struct Split: Sendable, CustomTestStringConvertible {
        let line: String
        let words: [String]
        var testDescription: String { line }
    }

    @Test(
        "$GITBAY_SYNC_SSH is split into words as a shell splits them",
        arguments: [
            Split(line: "ssh", words: ["ssh"]),
            Split(line: "  ssh   -F  config\t-v\n", words: ["ssh", "-F", "config", "-v"]),
            Split(line: "ssh -F '/home/me/my config'", words: ["ssh", "-F", "/home/me/my config"]),
            Split(line: #"ssh -F "/home/me/my config""#, words: ["ssh", "-F", "/home/me/my config"]),
            Split(line: #"ssh -F /home/me/my\ config"#, words: ["ssh", "-F", "/home/me/my config"]),
            Split(line: #"ssh -o 'ProxyCommand=nc %h %p'"#, words: ["ssh", "-o", "ProxyCommand=nc %h %p"]),
            Split(line: #"ssh -o "User=it's""#, words: ["ssh", "-o", "User=it's"]),
            Split(line: #"ssh -i 'a'"b"c"#, words: ["ssh", "-i", "abc"]),
            Split(line: #"ssh '' """#, words: ["ssh", "", ""]),
            Split(line: #"ssh "a\"b\\c\$d\`e\x""#, words: ["ssh", #"a"b\c$d`e\x"#]),
            Split(line: #"ssh 'no $HOME; `here` | > (x)'"#, words: ["ssh", "no $HOME; `here` | > (x)"]),
            Split(line: ##"ssh \$HOME a\#b x#y"##, words: ["ssh", "$HOME", "a#b", "x#y"]),
            Split(line: "ssh -v \\\n -F c", words: ["ssh", "-v", "-F", "c"]),
            Split(line: "ssh -i ~/.ssh/key", words: ["ssh", "-i", "~/.ssh/key"]),
            Split(line: "ssh\u{A0}x", words: ["ssh\u{A0}x"]),
            Split(line: "", words: []),
            Split(line: " \t\n", words: []),
        ])
    func split(_ test: Split) throws {
        #expect(try ShellWords.split(test.line) == test.words)
    }

    struct Refused: Sendable, CustomTestStringConvertible {
        let line: String
        let failure: ShellWords.Failure
        var testDescription: String { line }
    }

    @Test(
        "what a shell would act on, or cannot read, is refused",
        arguments: [
            Refused(line: "ssh -F 'x", failure: .unclosedQuote("'")),
            Refused(line: #"ssh -F "x"#, failure: .unclosedQuote("\"")),
            Refused(line: #"ssh x\"#, failure: .trailingBackslash),
            Refused(line: "ssh -i $HOME/key", failure: .shellSyntax("$")),
            Refused(line: #"ssh -i "$HOME/key""#, failure: .shellSyntax("$")),
            Refused(line: "ssh `id`", failure: .shellSyntax("`")),
            Refused(line: #"ssh "`id`""#, failure: .shellSyntax("`")),
            Refused(line: "ssh; rm -rf x", failure: .shellSyntax(";")),
            Refused(line: "ssh && x", failure: .shellSyntax("&")),
            Refused(line: "ssh | tee", failure: .shellSyntax("|")),
            Refused(line: "ssh > out", failure: .shellSyntax(">")),
            Refused(line: "ssh < in", failure: .shellSyntax("<")),
            Refused(line: "(ssh)", failure: .shellSyntax("(")),
            Refused(line: "ssh # a comment", failure: .shellSyntax("#")),
        ])
    func refused(_ test: Refused) {
        #expect(throws: test.failure) { try ShellWords.split(test.line) }
    }

    @Test("a quoted word reads back as itself, through this split and the server's")
    func quotedRoundTrip() throws {
        let words = ["plain", "git@host:22", "", "it's", "a b", "$HOME", "`id`", "x;y", "tab\there", "ünï", #"back\slash"#, "new\nline"]
        for word in words {
            #expect(try ShellWords.split(ShellWords.quoted(word)) == [word], "\(word)")
            #expect(try SSHCommandLine.split(ShellWords.quoted(word)) == [word], "\(word)")
        }
        #expect(ShellWords.quoted("gitbay-sync-laptop-gbs-abc123") == "gitbay-sync-laptop-gbs-abc123")
        #expect(ShellWords.quoted("720h") == "720h")
    }

    struct Destination: Sendable, CustomTestStringConvertible {
        let text: String
        let arguments: [String]
        var testDescription: String { text }
    }

    @Test(
        "an SSH destination gives ssh -p for its port and user@host",
        arguments: [
            Destination(text: "git@gitbay.org", arguments: ["git@gitbay.org"]),
            Destination(text: "git@gitbay.org:2222", arguments: ["-p", "2222", "git@gitbay.org"]),
            Destination(text: "gitbay", arguments: ["gitbay"]),
            Destination(text: "ssh.gitbay.org:22", arguments: ["-p", "22", "ssh.gitbay.org"]),
            Destination(text: "git@[::1]:2200", arguments: ["-p", "2200", "git@::1"]),
            Destination(text: "git@[::1]", arguments: ["git@::1"]),
            Destination(text: "first.last_1@host-2.example", arguments: ["first.last_1@host-2.example"]),
        ])
    func destination(_ test: Destination) throws {
        let parsed = try SSHDestination(parsing: test.text)
        #expect(parsed.arguments == test.arguments)
        #expect(try SSHDestination(parsing: parsed.description) == parsed)
    }

    @Test("without one, the destination is git@ and the instance's host, without its HTTP port")
    func defaultDestination() throws {
        #expect(SSHDestination.default(for: try InstanceURL(parsing: "https://gitbay.org")).arguments == ["git@gitbay.org"])
        #expect(SSHDestination.default(for: try InstanceURL(parsing: "http://127.0.0.1:3000")).arguments == ["git@127.0.0.1"])
        #expect(SSHDestination.default(for: try InstanceURL(parsing: "http://[::1]:3000")).arguments == ["git@::1"])
    }

    @Test("a lifetime is read as the server reads --ttl, an hour at least")
    func lifetimes() throws {
        let read = { (text: String) in try? TokenLifetime.parse(text).get().duration }
        #expect(read("90d") == .seconds(90 * 86_400))
        #expect(read("1d") == .seconds(86_400))
        #expect(read("720h") == .seconds(720 * 3600))
        #expect(read("1h30m") == .seconds(5400))
        #expect(read("1.5h") == .seconds(5400))
        #expect(read("3600s") == .seconds(3600))
        #expect(read("106751d") == .seconds(106_751 * 86_400), "the longest whole number of days Go holds")
        for refused in ["106752d", "59m59s", "0", "", "d", "90", "5x", "-90d", "+90d", "1 h", "90D"] {
            #expect(read(refused) == nil, "\(refused)")
        }
        #expect(TokenLifetime.standard.text == "90d" && TokenLifetime.standard.duration == .seconds(90 * 86_400))
    }

    @Test("the token's name says what it is and whose install, in characters any server takes")
    func names() {
        #expect(TokenName.forInstall(label: "work-laptop", installMarker: "gbs-k3x9q2") == "gitbay-sync-work-laptop-gbs-k3x9q2")
        #expect(TokenName.forInstall(label: "Alice's MacBook Pro.local", installMarker: "gbs-a") == "gitbay-sync-alice-s-macbook-pro.local-gbs-a")
        #expect(TokenName.forInstall(label: " --ünï//code-- ", installMarker: "gbs-b") == "gitbay-sync-n-code-gbs-b")
        #expect(TokenName.forInstall(label: "$(rm -rf ~)", installMarker: "gbs-c") == "gitbay-sync-rm-rf-gbs-c")
        #expect(TokenName.forInstall(label: "...", installMarker: "gbs-d") == "gitbay-sync-gbs-d")
        let long = TokenName.forInstall(label: String(repeating: "ab-", count: 40), installMarker: "gbs-e")
        #expect(long == "gitbay-sync-" + String(repeating: "ab-", count: 10) + "ab-gbs-e")
        for name in [long, TokenName.forInstall(label: "x y\n\u{1B}z", installMarker: "gbs-f")] {
            #expect(ShellWords.quoted(name) == name, "needs no quoting: \(name)")
        }
    }

    struct Ending: Sendable, CustomTestStringConvertible {
        let name: String
        let status: Int32
        let output: String
        let errors: String
        let outcome: Result<String, SSHTokenMint.Failure>
        var testDescription: String { name }
    }

    static let token = "gb_" + String(repeating: "ab", count: 20)

    @Test(
        "what ssh's ending means: its own failures (255), the server's refusal, or no gitbay answer",
        arguments: [
            Ending(
                name: "minted", status: 0,
                output: #"{"protocol_version":1,"data":{"name":"n","scope":"full","token":"\#(token)"},"exit_code":0,"more":1}"# + "\n",
                errors: "", outcome: .success(token)),
            Ending(
                name: "ssh failed after the server's answer: the answer stands", status: 255,
                output: #"{"protocol_version":1,"data":{"name":"n","scope":"full","token":"\#(token)"},"exit_code":0}"# + "\n",
                errors: "Connection to h closed by remote host.\n", outcome: .success(token)),
            Ending(
                name: "key refused", status: 255, output: "", errors: "git@h: Permission denied (publickey).\r\n",
                outcome: .failure(.keyRefused(said: "git@h: Permission denied (publickey)."))),
            Ending(
                name: "host key", status: 255, output: "", errors: "No ED25519 host key is known for h.\nHost key verification failed.\n",
                outcome: .failure(.hostKeyRefused(said: "No ED25519 host key is known for h.; Host key verification failed."))),
            Ending(
                name: "unreachable", status: 255, output: "", errors: "ssh: connect to host h port 22: Connection refused\n",
                outcome: .failure(.unreachable(said: "ssh: connect to host h port 22: Connection refused"))),
            Ending(
                name: "duplicate", status: 1,
                output: #"{"protocol_version":1,"error":"you already have a token named \"n\"","exit_code":1}"#, errors: "",
                outcome: .failure(.refused(exitCode: 1, message: #"you already have a token named "n""#))),
            Ending(
                name: "a token in an error is redacted", status: 4,
                output: #"{"protocol_version":1,"error":"denied \#(token)","exit_code":4}"#, errors: "warning \(token)",
                outcome: .failure(.refused(exitCode: 4, message: "denied gb_<redacted>"))),
            Ending(
                name: "protocol 2", status: 0, output: #"{"protocol_version":2,"data":{}}"#, errors: "",
                outcome: .failure(.protocolVersion(2))),
            Ending(
                name: "a shell account", status: 127, output: "", errors: "sh: 1: token: not found\n",
                outcome: .failure(.notGitbay(status: 127, said: "sh: 1: token: not found"))),
            Ending(
                name: "no token in data", status: 0, output: #"{"protocol_version":1,"data":{"name":"n"},"exit_code":0}"#, errors: "",
                outcome: .failure(.notGitbay(status: 0, said: ""))),
        ])
    func ending(_ test: Ending) {
        let ending = ChildProgram.Ending(status: test.status, output: Array(test.output.utf8), errorOutput: Array(test.errors.utf8))
        let outcome = SSHTokenMint.outcome(of: ending).map(\.token.exposedValue)
        #expect(outcome == test.outcome)
    }

    @Test("ssh's argv: the program's words, -p, the destination, --, then the remote words quoted for the server")
    func argv() throws {
        let program = SSHProgram(path: "/usr/bin/ssh", words: ["ssh", "-F", "my config"])
        let mint = SSHTokenMint(
            program: program, destination: try SSHDestination(parsing: "git@h:2222"), name: "it's mine",
            lifetime: try TokenLifetime.parse("1h30m").get())
        #expect(
            mint.argv == [
                "ssh", "-F", "my config", "-p", "2222", "git@h", "--", "token", "create", "--name", #"'it'\''s mine'"#, "--scope", "full",
                "--ttl", "1h30m", "--json",
            ])
        #expect(try SSHCommandLine.split(mint.remoteWords.joined(separator: " ")).dropFirst(3).first == "it's mine")
    }

    @Test("the program is $GITBAY_SYNC_SSH's first word, found on PATH like a shell finds it, else ssh")
    func program() throws {
        let path = "/nonexistent:/usr/bin:/bin"
        let plain = try SSHProgram.resolve(environment: ["PATH": path]).get()
        #expect(plain.words == ["ssh"] && plain.path.hasSuffix("/ssh"))
        let named = try SSHProgram.resolve(environment: ["PATH": path, "GITBAY_SYNC_SSH": "sh -c 'exit 3'"]).get()
        #expect(named.words == ["sh", "-c", "exit 3"] && named.path.hasSuffix("/sh"))
        #expect(try SSHProgram.resolve(environment: ["PATH": path, "GITBAY_SYNC_SSH": "  "]).get().words == ["ssh"], "no words: unset")
        #expect(SSHProgram.resolve(environment: ["PATH": "/nonexistent"]) == .failure(.notFound(program: "ssh", fromVariable: false)))
        #expect(
            SSHProgram.resolve(environment: ["PATH": path, "GITBAY_SYNC_SSH": "/bin"]) == .failure(.notFound(program: "/bin", fromVariable: true)),
            "a folder is not a program")
        #expect(SSHProgram.resolve(environment: ["GITBAY_SYNC_SSH": "ssh 'x"]) == .failure(.malformedVariable(.unclosedQuote("'"))))
    }

    @Test("every hint about where a token comes from gives the whole command, with the host")
    func mintHints() throws {
        #expect(
            TokenMinting.command(for: try InstanceURL(parsing: "https://gitbay.org"))
                == "ssh git@gitbay.org token create --name gitbay-sync --scope full")
        #expect(TokenMinting.command(forAccount: "alice@127.0.0.1:3000") == "ssh git@127.0.0.1 token create --name gitbay-sync --scope full")
        #expect(TokenMinting.command(forAccount: "a@b@[::1]:3000") == "ssh git@::1 token create --name gitbay-sync --scope full")
        let error = GitbayError(kind: .readOnlyToken, account: "alice@gitbay.example:8443", command: ["notifications", "device", "add"])
        #expect(FailureText.said(error, instance: nil).contains("`ssh git@gitbay.example token create --name gitbay-sync --scope full`"))
        let refused = GitbayError(kind: .authFailed, account: "alice@gitbay.example", command: ["whoami"])
        #expect(FailureText.said(refused, instance: nil).contains("`ssh git@gitbay.example token create --name gitbay-sync --scope full`"))
        #expect(FailureText.said(refused, instance: nil).contains("`gitbay-sync login <instance-url> --ssh`"))
        let instance = try InstanceURL(parsing: "https://gitbay.example:8443")
        #expect(FailureText.said(refused, instance: instance).contains("`gitbay-sync login https://gitbay.example:8443 --ssh` mints one"))
    }
}
