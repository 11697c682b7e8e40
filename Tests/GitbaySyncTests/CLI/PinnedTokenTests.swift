import Foundation
import GitbayFake
import TestSupport
import Testing

@testable import GitbaySync

/// A token `login --ssh --token-name` minted keeps the name the user gave, so no run rotates
/// it: from a fifth of its lifetime before it expires, `status`, `doctor` and runs say so, with
/// the sign-in that replaces it.
@Suite(
    "A pinned token name is warned of before it lapses",
    .enabled(if: SSHFront.missingTools == nil, "needs sshd, ssh and ssh-keygen: run scripts/install-deps"))
struct PinnedTokenTests {
    @Test("status, doctor and run warn from a fifth of the lifetime before the expiry, naming the sign-in that fixes it; not before")
    func warnedBeforeExpiry() async throws {
        let scene = try await LoginSSHTests.Scene.make()
        defer { scene.stop() }
        #expect(await scene.login(["--token-name", "ci-laptop", "--ttl", "10d"], destination: scene.destination).code == 0)
        let early = Date().addingTimeInterval(7 * 86_400)
        let late = Date().addingTimeInterval(8.5 * 86_400)
        let fix = "gitbay-sync login \(scene.server.baseURL) --ssh"

        let quiet = await scene.cli.run(["status"], adjust: { $0.now = { early } })
        #expect(!quiet.out.contains("warning"), "\(quiet.out)")

        let status = await scene.cli.run(["status"], adjust: { $0.now = { late } })
        #expect(status.out.contains("warning: the API token of alice@"), "\(status.out)")
        #expect(status.out.contains("ci-laptop") && status.out.contains("no run renews it"), "\(status.out)")
        #expect(status.out.contains(fix), "\(status.out)")

        let doctor = await scene.cli.run(["doctor"], adjust: { $0.now = { late } })
        #expect(doctor.out.contains("WARN  account.token_expiry  alice@"), "\(doctor.out)")
        #expect(doctor.out.contains(fix), "\(doctor.out)")

        let run = await scene.cli.run(["run"], adjust: { $0.now = { late } })
        #expect(run.err.contains("warning: the API token of alice@"), "\(run.err)")
        #expect(run.err.contains(fix), "\(run.err)")
        let quietRun = await scene.cli.run(["run"], adjust: { $0.now = { early } })
        #expect(!quietRun.err.contains("no run renews it"), "\(quietRun.err)")
    }

    @Test("a token named for this install is rotated by runs, so nothing warns of it")
    func installNameNotWarned() async throws {
        let scene = try await LoginSSHTests.Scene.make()
        defer { scene.stop() }
        let login = await scene.login(["--ttl", "10d"], destination: scene.destination)
        #expect(login.code == 0, "\(login.err)")
        let late = Date().addingTimeInterval(8.5 * 86_400)

        let status = await scene.cli.run(["status"], adjust: { $0.now = { late } })

        #expect(!status.out.contains("no run renews it"), "\(status.out)")
    }
}
