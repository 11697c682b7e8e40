import Foundation
import TestSupport
import Testing

@testable import GitbaySync

/// `make install` and `make uninstall`, given the debug binary so that nothing is built.
/// `scripts/check-install` does the same with the release build.
@Suite("make install")
struct InstallTests {
    static let installed = [
        "usr/bin/gitbay-sync",
        "usr/share/man/man1/gitbay-sync.1",
        "usr/share/bash-completion/completions/gitbay-sync",
        "usr/share/zsh/site-functions/_gitbay-sync",
        "usr/share/fish/vendor_completions.d/gitbay-sync.fish",
    ]

    static func make(_ target: String, stage: String, folder: TemporaryDirectory) async throws -> CLIResult {
        let binary = try BuiltBinary.located()
        let make = try BuiltBinary(executable: "/usr/bin/make", environment: ["PATH": "/usr/bin:/bin"], folder: folder)
        return try await make.run(["-s", "-C", ManPageTests.root, target, "BINARY=\(binary)", "DESTDIR=\(stage)", "PREFIX=/usr"])
    }

    /// Every file under `folder`, relative to it.
    static func files(under folder: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder), !isFolder.boolValue { files.append(path) }
        }
        return files.sorted()
    }

    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test(
        "installs the binary, the manual page and the completions under DESTDIR and PREFIX; uninstall removes exactly those",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/make") || ProcessInfo.processInfo.environment["CI"] == "true",
            "make is not installed (scripts/install-deps installs it)"))
    func installAndUninstall() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/make"), "make is not installed: scripts/install-deps installs it")
        let folder = try TemporaryDirectory()
        let stage = folder.file("stage")
        let install = try await Self.make("install", stage: stage, folder: folder)
        #expect(install.code == 0, "\(install.err)")
        #expect(Self.files(under: stage) == Self.installed.sorted())

        #expect(try Self.mode(stage + "/usr/bin/gitbay-sync") == 0o755)
        for file in Self.installed.dropFirst() { #expect(try Self.mode(stage + "/" + file) == 0o644, "\(file)") }
        let page = try String(contentsOfFile: stage + "/usr/share/man/man1/gitbay-sync.1", encoding: .utf8)
        #expect(
            page
                == ManPage.render(
                    commands: CommandRegistry.specs, globalOptions: GlobalOptions.specs, version: HelpText.version, date: HelpText.versionDate))
        let scripts: [(String, Shell)] = [
            ("usr/share/bash-completion/completions/gitbay-sync", .bash), ("usr/share/zsh/site-functions/_gitbay-sync", .zsh),
            ("usr/share/fish/vendor_completions.d/gitbay-sync.fish", .fish),
        ]
        for (file, shell) in scripts {
            let script = try String(contentsOfFile: stage + "/" + file, encoding: .utf8)
            #expect(script == Completions.render(shell: shell, commands: CommandRegistry.specs, globalOptions: GlobalOptions.specs) + "\n", "\(file)")
        }

        // Uninstall leaves alone what install did not put there.
        try "mine".write(toFile: stage + "/usr/bin/other", atomically: true, encoding: .utf8)
        let uninstall = try await Self.make("uninstall", stage: stage, folder: folder)
        #expect(uninstall.code == 0, "\(uninstall.err)")
        #expect(Self.files(under: stage) == ["usr/bin/other"])
    }
}
