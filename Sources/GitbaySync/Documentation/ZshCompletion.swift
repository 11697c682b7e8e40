/// The zsh completion script: a `_gitbay-sync` function for `fpath`, with the commands and
/// options described.
enum ZshCompletion {
    static func render(_ model: CompletionModel) -> String {
        lookups(model) + "\n\n" + subcommands(model) + "\n\n" + readLine(model) + "\n" + answer(model)
    }

    /// Resolving the command words, and offering the accounts.
    private static func lookups(_ model: CompletionModel) -> String {
        return #"""
            #compdef gitbay-sync
            # zsh completion for gitbay-sync, as printed by `gitbay-sync completions zsh`.

            \#(BashCompletion.resolveFunction(model))

            _gitbay_sync_accounts() {
                local -a accounts
                accounts=(${(f)"$(command gitbay-sync "$@" accounts --json 2>/dev/null \
                    | grep -oE '"account": *"([^"\\]|\\.)*"' | sed -E 's/^"account": *"//; s/"$//; s/\\(.)/\1/g')"})
                (( ${#accounts} )) && compadd -a accounts
            }
            """#
    }

    /// The second words of each group, described.
    private static func subcommands(_ model: CompletionModel) -> String {
        return #"""
            _gitbay_sync_subcommands() {
                local -a described
                case "$1" in
            \#(model.subcommands.map { "        \(q($0.first))) described=(\(described($0.words))) ;;" }.joined(separator: "\n"))
                esac
                (( ${#described} )) && _describe -t commands 'subcommand' described
            }
            """#
    }

    /// The completion function, first half: the words typed so far, and option values.
    private static func readLine(_ model: CompletionModel) -> String {
        return #"""
            _gitbay-sync() {
                local -a positionals db described
                local i=2 token prev="${words[CURRENT-1]}"
                while (( i < CURRENT )); do
                    token="${words[i]}"
                    (( i++ ))
                    case "$token" in
                        \#(alternatives(model.fileOptions.map(q)))) db=("$token" "${words[i]}"); (( i++ )) ;;
                        \#(alternatives(model.otherValueOptions.map(q)))) (( i++ )) ;;
                        -*) ;;
                        *) positionals+=("$token") ;;
                    esac
                done
                case "$prev" in
                    \#(alternatives(model.fileOptions.map(q)))) _files; return ;;
            \#(model.valueWords.map { "        \(q($0.option))) compadd -- \($0.words.joined(separator: " ")); return ;;" }.joined(separator: "\n"))
                    \#(alternatives(model.otherValueOptions.map(q)))) _message 'value'; return ;;
                esac
                local key used
                _gitbay_sync_resolve "${positionals[@]}"
            """#
    }

    /// The completion function, second half: what to offer, and the call.
    private static func answer(_ model: CompletionModel) -> String {
        return #"""
                if [[ $PREFIX == -* ]]; then
                    described=(\#(options(model.globalOptions, short: true)))
                    case "$key" in
            \#(model.options.map { "            \(q($0.command))) described+=(\(options($0.options))) ;;" }.joined(separator: "\n"))
                    esac
                    _describe -t options 'option' described
                elif (( ${#positionals} == 0 )) || [[ ${#positionals} == 1 && ${positionals[1]} == help ]]; then
            \#(commandGroups(model))
                elif [[ ${positionals[1]} == help ]]; then
                    (( ${#positionals} == 2 )) && _gitbay_sync_subcommands "${positionals[2]}"
                else
                    (( ${#positionals} == 1 )) && _gitbay_sync_subcommands "${positionals[1]}"
                    case "$key $(( ${#positionals} - used ))" in
            \#(argumentArms(model))
                    esac
                fi
                return 0
            }

            _gitbay-sync "$@"
            """#
    }

    private static func q(_ text: String) -> String { ShellQuote.posix(text) }

    /// The first words offered in the help's groups: one `_describe` per group, each with its
    /// own tag, so that zsh lists them under the group's name where `group-name` is set.
    private static func commandGroups(_ model: CompletionModel) -> String {
        CommandGroup.allCases.compactMap { group in
            let words = model.firstWords.filter { $0.group == group }
            guard !words.isEmpty else { return nil }
            return "        described=(\(described(words))); _describe -t \(q(group.tag + "-commands")) \(q(group.title)) described"
        }.joined(separator: "\n")
    }

    private static func alternatives(_ patterns: [String]) -> String { BashCompletion.alternatives(patterns) }

    /// `_describe` entries: `word:about`, quoted.
    private static func described(_ words: [CompletionModel.Word]) -> String {
        words.map { ShellQuote.posix(escapedColons($0.word) + ":" + ShellQuote.about($0.about)) }.joined(separator: " ")
    }

    private static func options(_ options: [CommandSpec.Option], short: Bool = false) -> String {
        var words = options.map { CompletionModel.Word(word: $0.name, about: $0.help) }
        if short {
            words += options.compactMap { option in
                CompletionModel.shortForms[option.name].map { CompletionModel.Word(word: $0, about: option.help) }
            }
        }
        return described(words)
    }

    private static func escapedColons(_ word: String) -> String {
        word.split(separator: ":", omittingEmptySubsequences: false).joined(separator: "\\:")
    }

    private static func argumentArms(_ model: CompletionModel) -> String {
        model.arguments.map { argument in
            let action =
                switch argument.source {
                case .accounts: #"_gitbay_sync_accounts "${db[@]}""#
                case .words(let words): "compadd -- \(words.joined(separator: " "))"
                }
            return "            \(ShellQuote.posix("\(argument.command) \(argument.index)"))) \(action) ;;"
        }.joined(separator: "\n")
    }
}
