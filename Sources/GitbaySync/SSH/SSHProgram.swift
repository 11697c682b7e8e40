#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ssh program `login --ssh` runs and the words it starts with: `$GITBAY_SYNC_SSH` read as
/// a shell reads a command's words (`ssh -F ~/.ssh/gitbay_config`), as git reads
/// `GIT_SSH_COMMAND`, though no shell runs it; else `ssh` found on `PATH`. A variable that
/// holds no words counts as unset.
struct SSHProgram: Sendable, Equatable {
    static let variable = "GITBAY_SYNC_SSH"

    /// The executable to start.
    let path: String
    /// Its argv: the program as written, then the words that follow it.
    let words: [String]

    enum Failure: Error, Equatable {
        /// `$GITBAY_SYNC_SSH` cannot be read as words.
        case malformedVariable(ShellWords.Failure)
        /// No executable by that name: not on `PATH`, or not at the path given.
        case notFound(program: String, fromVariable: Bool)
    }

    /// The program the environment names.
    static func resolve(environment: [String: String]) -> Result<SSHProgram, Failure> {
        var words = ["ssh"]
        var fromVariable = false
        if let line = environment[variable] {
            do {
                let split = try ShellWords.split(line)
                if !split.isEmpty {
                    words = split
                    fromVariable = true
                }
            } catch {
                return .failure(.malformedVariable(error))
            }
        }
        guard let path = find(words[0], path: environment["PATH"] ?? "/usr/bin:/bin") else {
            return .failure(.notFound(program: words[0], fromVariable: fromVariable))
        }
        return .success(SSHProgram(path: path, words: words))
    }

    /// `program` itself when it holds a `/`, else the first executable file of that name in
    /// the folders of `path`, as a shell looks for a command.
    static func find(_ program: String, path: String) -> String? {
        guard !program.isEmpty else { return nil }
        if program.contains("/") { return isExecutableFile(program) ? program : nil }
        for folder in path.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + program
            if isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }
}
