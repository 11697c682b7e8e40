/// What a command line gave one command, checked against its spec: every option is one of its
/// own (or a global one, which the parser keeps), none is given twice, a flag has no value,
/// and the arguments fit the spec's count.
struct CommandInput {
    let spec: CommandSpec
    private let arguments: [String]
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    init(spec: CommandSpec, arguments: [String], options: [(name: String, value: String?)]) throws(UsageError) {
        self.spec = spec
        self.arguments = arguments
        for (name, value) in options {
            try take(name, value)
        }
        let required = spec.arguments.filter { !$0.optional }.count
        if arguments.count < required {
            let missing = spec.arguments[arguments.count]
            throw UsageError("'\(spec.name)' needs <\(missing.name)>: \(missing.help)", command: spec.words)
        }
        if arguments.count > spec.arguments.count {
            throw UsageError("unexpected argument '\(arguments[spec.arguments.count])' for '\(spec.name)'", command: spec.words)
        }
    }

    private mutating func take(_ name: String, _ value: String?) throws(UsageError) {
        guard let option = spec.options.first(where: { $0.name == name }) else {
            let known = spec.options.map(\.name) + GlobalOptions.specs.map(\.name)
            throw UsageError("unknown option '\(name)' for '\(spec.name)'" + NearMiss.hint(for: name, among: known), command: spec.words)
        }
        if values[name] != nil || flags.contains(name) {
            throw UsageError("option '\(name)' is given twice", command: spec.words)
        }
        if option.valueName == nil {
            guard value == nil else { throw UsageError("option '\(name)' takes no value", command: spec.words) }
            flags.insert(name)
        } else {
            values[name] = value
        }
    }

    /// Whether the flag was given.
    func isSet(_ flag: CommandSpec.Option) -> Bool {
        flags.contains(flag.name)
    }

    /// The option's value, if it was given.
    func value(_ option: CommandSpec.Option) -> String? {
        values[option.name]
    }

    /// The option's value made typed by `convert`, if it was given.
    func value<Value>(_ option: CommandSpec.Option, _ convert: (String) throws(UsageError) -> Value) throws(UsageError) -> Value? {
        guard let text = values[option.name] else { return nil }
        return try convert(text)
    }

    /// The argument, if it was given.
    func value(_ argument: CommandSpec.Argument) -> String? {
        guard let index = spec.arguments.firstIndex(of: argument), index < arguments.count else { return nil }
        return arguments[index]
    }

    /// A required argument: always there once the input is checked, so a miss is this
    /// command's spec not listing it.
    func required(_ argument: CommandSpec.Argument) throws(UsageError) -> String {
        guard let text = value(argument) else {
            throw UsageError("'\(spec.name)' needs <\(argument.name)>: \(argument.help)", command: spec.words)
        }
        return text
    }

    /// A usage error about this command.
    func error(_ message: String) -> UsageError {
        UsageError(message, command: spec.words)
    }
}
