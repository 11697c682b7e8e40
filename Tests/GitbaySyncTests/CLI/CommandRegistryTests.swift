import Testing

@testable import GitbayReconcile
@testable import GitbaySupport
@testable import GitbaySync

@Suite("Command registry")
struct CommandRegistryTests {
    @Test("each command's words name it alone, and no alias is another command's word")
    func wordsAreUnique() {
        let names = CommandRegistry.specs.map(\.name)
        #expect(Set(names).count == names.count, "\(names)")
        let aliases = CommandRegistry.specs.flatMap(\.aliasWords).map { $0.joined(separator: " ") }
        #expect(Set(aliases).count == aliases.count)
        #expect(Set(aliases).isDisjoint(with: names))
        let firstWordAliases = CommandRegistry.specs.flatMap(\.aliasWords).filter { $0.count == 1 }.map { $0[0] }
        #expect(Set(firstWordAliases).isDisjoint(with: CommandRegistry.specs.map { $0.words[0] }))
    }

    @Test("every command finds itself by its words and by each alias's, and the help lists them in registry order")
    func foundByWords() throws {
        for command in CommandRegistry.all {
            let match = try CommandRegistry.find(command.spec.words)
            #expect(ObjectIdentifier(match.command) == ObjectIdentifier(command), "\(command.spec.name)")
            #expect(match.rest.isEmpty)
            for alias in command.spec.aliasWords {
                let aliased = try CommandRegistry.find(alias + ["x"])
                #expect(ObjectIdentifier(aliased.command) == ObjectIdentifier(command), "\(alias)")
                #expect(aliased.spec.words == alias && aliased.rest == ["x"])
            }
        }
        let help = HelpText.program()
        let positions = CommandRegistry.specs.compactMap { help.range(of: "  \($0.name)  ")?.lowerBound }
        #expect(positions.count == CommandRegistry.specs.count)
        #expect(positions == positions.sorted())
    }

    @Test("the registry lists the commands by group, and the help each group under its heading with its commands alone")
    func groups() throws {
        let order = CommandRegistry.specs.map { spec in CommandGroup.allCases.firstIndex(of: spec.group)! }
        #expect(order == order.sorted(), "\(CommandRegistry.specs.map(\.name))")
        #expect(Set(CommandRegistry.specs.map(\.group)) == Set(CommandGroup.allCases), "a group without a command")
        let blocks = HelpText.program().components(separatedBy: "\n\n")
        let headings = blocks.compactMap { $0.split(separator: "\n").first.map(String.init) }.filter { $0.hasSuffix(":") }
        #expect(Array(headings.prefix(CommandGroup.allCases.count)) == CommandGroup.allCases.map { "\($0.title):" })
        for group in CommandGroup.allCases {
            let block = try #require(blocks.first { $0.hasPrefix("\(group.title):\n") })
            let listed = block.split(separator: "\n").dropFirst().compactMap { line in
                CommandRegistry.specs.first { line.hasPrefix("  \($0.name)  ") }?.name
            }
            #expect(listed == CommandRegistry.specs.filter { $0.group == group }.map(\.name), "\(group)")
        }
    }

    @Test("no command takes an option with a global option's name, nor one option twice")
    func optionNames() {
        let global = Set(GlobalOptions.specs.map(\.name))
        for spec in CommandRegistry.specs {
            let names = spec.options.map(\.name)
            #expect(Set(names).count == names.count, "\(spec.name)")
            #expect(global.isDisjoint(with: names), "\(spec.name)")
        }
    }

    @Test("a line is read with the value options given: an option that takes no value there leaves the next word an argument")
    func tokensFollowTheOptions() {
        let line = ["x", "--flag", "y", "--", "--z"]
        let asValue = ArgumentTokens(line, valueOptions: ["--flag"])
        #expect(asValue.positionals == ["x", "--z"])
        #expect(asValue.options.map(\.name) == ["--flag"] && asValue.options.map(\.value) == ["y"])
        let asFlag = ArgumentTokens(line, valueOptions: [])
        #expect(asFlag.positionals == ["x", "y", "--z"])
        #expect(asFlag.options.map(\.name) == ["--flag"] && asFlag.options.map(\.value) == [nil])
    }

    /// A command's input, checked against a spec of its own.
    static let spec = CommandSpec(
        words: ["probe"], group: .lookingAround, arguments: [.account, .init(name: "extra", optional: true, help: "More.")],
        options: [.every, .init(name: "--yes", valueName: nil, help: "Yes.")], summary: "A probe.", discussion: ""
    )

    @Test("the input gives each option and argument typed, and refuses what the spec does not list")
    func input() throws {
        let input = try CommandInput(spec: Self.spec, arguments: ["a@h"], options: [("--every", "15m"), ("--yes", nil)])
        #expect(try input.required(.account) == "a@h")
        #expect(input.value(.init(name: "extra", optional: true, help: "More.")) == nil)
        #expect(try input.value(.every, IntervalParser.option) == .seconds(900))
        #expect(input.isSet(.init(name: "--yes", valueName: nil, help: "Yes.")))
        let unknown = #expect(throws: UsageError.self) { try CommandInput(spec: Self.spec, arguments: ["a@h"], options: [("--label", "x")]) }
        #expect(unknown?.message == "unknown option '--label' for 'probe'")
        #expect(unknown?.commandWords == ["probe"])
        let missing = #expect(throws: UsageError.self) { try CommandInput(spec: Self.spec, arguments: [], options: []) }
        #expect(missing?.message == "'probe' needs <account>: \(CommandSpec.Argument.account.help)")
        let extra = #expect(throws: UsageError.self) { try CommandInput(spec: Self.spec, arguments: ["a", "b", "c"], options: []) }
        #expect(extra?.message == "unexpected argument 'c' for 'probe'")
    }

    @Test("the partial-failure summary: one Error line per failure, then the count and names, escaped, and the advice as given")
    func partialFailureSummary() {
        #expect(PartialFailureSummary(failures: [], total: 3).lines(advice: "Advice.").isEmpty)
        let one = PartialFailureSummary(failures: [("a@h", "a@h: refused")], total: 1)
        #expect(one.lines(advice: "Try again.") == ["Error: a@h: refused", "1 of 1 account failed: a@h. Try again."])
        let two = PartialFailureSummary(failures: [("a@h", "a@h: refused")], total: 2)
        #expect(two.lines() == ["Error: a@h: refused", "1 of 2 accounts failed: a@h."])
        let odd = PartialFailureSummary(failures: [("b\u{1B}@h", "b\u{1B}@h failed"), ("c@h", "c@h failed")], total: 4)
        #expect(odd.lines() == ["Error: b\\u{1B}@h failed", "Error: c@h failed", "2 of 4 accounts failed: b\\u{1B}@h, c@h."])
        // The advice's names are escaped by its caller: escaped again, a quoted command's `\` would end its quote.
        let advice = "Remove it: `gitbay-sync remove-account 'x'\\''y@h'`."
        #expect(one.lines(advice: advice).last == "1 of 1 account failed: a@h. " + advice)
    }
}
