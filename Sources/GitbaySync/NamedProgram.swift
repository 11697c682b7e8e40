/// A helper program gitbay-sync starts (systemctl for `service install --enable`, notify-send
/// for a run's desktop notification): the command line an environment variable holds, read as
/// `$GITBAY_SYNC_SSH` is (words split as a shell splits them, run by no shell), else the
/// program of that name on `PATH`. A variable that holds no words counts as unset.
struct NamedProgram: Sendable, Equatable {
    /// The executable to start.
    let path: String
    /// Its argv so far: the program as written, then the words that follow it.
    let words: [String]

    enum Failure: Error, Equatable {
        /// The variable cannot be read as words.
        case malformedVariable(String, ShellWords.Failure)
        /// No executable by that name: not on `PATH`, or not at the path given.
        case notFound(program: String, variable: String?)
    }

    /// The program `variable` names in `environment`, else `program` on `PATH`.
    static func resolve(_ program: String, variable: String?, environment: [String: String]) -> Result<NamedProgram, Failure> {
        var words = [program]
        var fromVariable = false
        if let variable, let line = environment[variable] {
            do {
                let split = try ShellWords.split(line)
                if !split.isEmpty {
                    words = split
                    fromVariable = true
                }
            } catch {
                return .failure(.malformedVariable(variable, error))
            }
        }
        guard let path = SSHProgram.find(words[0], path: environment["PATH"] ?? "/usr/bin:/bin") else {
            return .failure(.notFound(program: words[0], variable: fromVariable ? variable : nil))
        }
        return .success(NamedProgram(path: path, words: words))
    }
}

extension NamedProgram.Failure: CustomStringConvertible {
    var description: String {
        switch self {
        case .malformedVariable(let variable, let problem): "\(variable) cannot be read as a command line: \(problem)"
        case .notFound(let program, let variable?): "\(variable) names \(program), which is not an executable file (nor one on PATH)"
        case .notFound(let program, nil): "there is no \(program) program on PATH"
        }
    }
}
